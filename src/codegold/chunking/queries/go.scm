; codegold tags query: Go. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

(function_declaration name: (identifier) @name) @definition.function

; Methods are qualified by their receiver type, pointer and type arguments stripped.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name) @definition.type
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @declaration.interface
(type_alias name: (type_identifier) @name) @declaration.type

; Interface methods and struct fields: names only unless split out.
(interface_type (method_elem name: (field_identifier) @name) @declaration.method)
(struct_type
  (field_declaration_list
    (field_declaration name: (field_identifier) @name) @definition.field))

; Package-level constants and variables: names only.
(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.constant)
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name))) @definition.constant)

; Subtests written as calls, t.Run("name", func(t *testing.T) {...}), are named by their
; title verbatim (never qualified; they add the name to their test function's chunk).
((call_expression
   function: (selector_expression field: (field_identifier) @_run)
   arguments: (argument_list
     . [(interpreted_string_literal) (raw_string_literal)] @title
     (func_literal body: (block) @body)))
 (#eq? @_run "Run")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression field: (field_identifier) @reference.call))
(composite_literal type: (type_identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
(field_identifier) @reference.identifier
(package_identifier) @reference.identifier
