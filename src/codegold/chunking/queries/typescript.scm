; codegold tags query: TypeScript, also used for TSX. Capture names are described in
; README.md.

; ---- definitions ---------------------------------------------------------

; Module-level variables: names only (a function value below makes them a function).
(program
  (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program
  (variable_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program
  (export_statement
    (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
(program
  (export_statement
    (variable_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
(program
  (ambient_declaration
    (lexical_declaration (variable_declarator name: (identifier) @name)) @declaration.constant))
(program
  (export_statement
    (ambient_declaration
      (lexical_declaration (variable_declarator name: (identifier) @name)) @declaration.constant)))
; ... and the same inside namespaces, which do not qualify names.
([(internal_module body: (statement_block
     [(lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant
      (export_statement
        (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)]))
  (module body: (statement_block
     [(lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant
      (export_statement
        (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)]))])

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @declaration.function

; const f = () => ...; const f = function () {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function


(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @definition.class
; module.exports = class Application extends Emitter {...}: by the class's own name.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports
      right: (class name: (type_identifier) @name body: (class_body) @body))
    (#eq? @_exports "module.exports")) @definition.class)

(interface_declaration name: (type_identifier) @name) @declaration.interface
(type_alias_declaration name: (type_identifier) @name) @declaration.type
; A type alias of an object type is an interface by another spelling (`type KyOptions =
; {…}`): a container whose properties are named `KyOptions.timeout`, split when long.
(type_alias_declaration name: (type_identifier) @name value: (object_type) @body)
  @declaration.interface
(enum_declaration name: (identifier) @name) @definition.enum

; namespace N { } and declare module "m" { }
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: (string (string_fragment) @name)) @definition.module

; Class members (object literals other than the exported ones below are left alone).
(class_body
  (public_field_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]) @definition.field)
(class_body
  (method_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]) @definition.method)
(class_body
  (public_field_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]
    value: [(arrow_function) (function_expression)]) @definition.method)
(class_body
  (method_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method)
(class_body
  (abstract_method_signature name: (property_identifier) @name) @declaration.method)

; Interface members.
(interface_body
  (property_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.field)
(interface_body
  (method_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method)

(type_alias_declaration
  value: (object_type
    (property_signature
      name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.field))
(type_alias_declaration
  value: (object_type
    (method_signature
      name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method))

; Enum members.
(enum_body name: (property_identifier) @name @definition.field)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.field)

; @include _js_common  (queries/_js_common.scm, shared with javascript)

; ---- leading comments and decorators -------------------------------------

(comment) @leading
(class_body (decorator) @leading)

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
(property_identifier) @reference.identifier
(shorthand_property_identifier) @reference.identifier
