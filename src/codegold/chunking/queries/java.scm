; codegold tags query: Java. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(interface_declaration name: (identifier) @name) @declaration.interface
(annotation_type_declaration name: (identifier) @name) @declaration.interface

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

; Abstract and interface methods have no body.
(method_declaration name: (identifier) @name !body) @declaration.method
(annotation_type_element_declaration name: (identifier) @name) @declaration.method

; Fields, interface constants and enum constants: names only unless split out.
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(enum_constant name: (identifier) @name) @definition.field

; ---- leading comments ----------------------------------------------------

(line_comment) @leading
(block_comment) @leading

; ---- references ----------------------------------------------------------

(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.call)
(object_creation_expression type: (generic_type (type_identifier) @reference.call))
(type_identifier) @reference.type
(identifier) @reference.identifier
