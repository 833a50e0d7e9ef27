; codegold tags query: Swift. Capture names are described in README.md.
;
; An extension is an `impl`: it qualifies its members with the extended type
; (`extension Cart { func total() }` is `Cart.total`) but does not define the type.

; ---- definitions ---------------------------------------------------------

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @name .)) @definition.impl
(protocol_declaration name: (type_identifier) @name) @declaration.interface
(typealias_declaration name: (type_identifier) @name) @declaration.type

(function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.method
(protocol_function_declaration name: (simple_identifier) @name) @declaration.method

; Properties and enum cases: names only unless split out.
(source_file
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
(class_body
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(enum_class_body
  (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(protocol_property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)) @declaration.field
(enum_entry name: (simple_identifier) @name) @definition.field

; Tests written as calls, named by their title verbatim (never qualified); a suite
; (describe/context) is a container, a test (it/test) a function.
; Quick: describe("…") { it("…") {…} } (inside `spec()`: titled tests are
; never local).
((call_expression
   . (simple_identifier) @_suite
   (call_suffix
     (value_arguments . (value_argument value: (line_string_literal) @title))
     (lambda_literal) @body))
 (#any-of? @_suite "describe" "context" "suite" "feature" "given" "when" "fdescribe" "xdescribe")) @definition.module
((call_expression
   . (simple_identifier) @_test
   (call_suffix
     (value_arguments . (value_argument value: (line_string_literal) @title))
     (lambda_literal) @body))
 (#any-of? @_test "it" "test" "specify" "should" "scenario" "then" "example" "fit" "xit")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading
(multiline_comment) @leading

; ---- references ----------------------------------------------------------

(call_expression . (simple_identifier) @reference.call)
(call_expression
  . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @reference.call)))
(type_identifier) @reference.type
(simple_identifier) @reference.identifier
