; codegold tags query: JavaScript (and JSX). Capture names are described in README.md.

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

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; const f = () => ...; const f = function () {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function


(class_declaration name: (identifier) @name) @definition.class
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @definition.class
; module.exports = class Application extends Emitter {...}: by the class's own name.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports
      right: (class name: (identifier) @name body: (class_body) @body))
    (#eq? @_exports "module.exports")) @definition.class)

; Class members (object literals other than the exported ones below are left alone).
(class_body
  (field_definition
    property: [(property_identifier) @name
               (private_property_identifier) @name
               (string (string_fragment) @name)]) @definition.field)
(class_body
  (method_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]) @definition.method)
(class_body
  (field_definition
    property: [(property_identifier) @name
               (private_property_identifier) @name
               (string (string_fragment) @name)]
    value: [(arrow_function) (function_expression)]) @definition.method)

; @include _js_common  (queries/_js_common.scm, shared with typescript)

; ---- leading comments (decorators sit inside the member node) -----------

(comment) @leading

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)
(identifier) @reference.identifier
(property_identifier) @reference.identifier
(shorthand_property_identifier) @reference.identifier
