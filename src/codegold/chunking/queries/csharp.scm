; codegold tags query: C#. Capture names are described in README.md.
;
; Namespaces (block or file-scoped) are not captured: they neither chunk nor qualify,
; like Java packages. Nested types qualify their members: `Outer.Inner.Method`.

; ---- definitions ---------------------------------------------------------

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(interface_declaration name: (identifier) @name) @declaration.interface
(delegate_declaration name: (identifier) @name) @declaration.type

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
; Abstract, extern, partial and interface methods have no body.
(method_declaration name: (identifier) @name !body) @declaration.method

; Properties, events, fields, constants and enum members: names only unless split out.
(property_declaration name: (identifier) @name) @definition.field
(event_declaration name: (identifier) @name) @definition.field
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.field

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(invocation_expression function: (identifier) @reference.call)
(invocation_expression function: (member_access_expression name: (identifier) @reference.call))
(invocation_expression
  function: (member_access_expression name: (generic_name (identifier) @reference.call)))
(invocation_expression function: (generic_name (identifier) @reference.call))
(object_creation_expression type: (identifier) @reference.call)
(object_creation_expression type: (generic_name (identifier) @reference.call))
(base_list (identifier) @reference.type)
(base_list (generic_name (identifier) @reference.type))
(identifier) @reference.identifier
