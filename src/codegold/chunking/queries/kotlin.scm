; codegold tags query: Kotlin. Capture names are described in README.md.
;
; Packages are not captured. A companion object is not captured either, so its
; members qualify with the class (`Money.of`), as Kotlin calls them. An extension
; function is qualified by its receiver type: `fun String.toMoney()` is `String.toMoney`.

; ---- definitions ---------------------------------------------------------

(class_declaration name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @declaration.interface
(class_declaration
  (modifiers (class_modifier) @_enum)
  name: (identifier) @name
  (#eq? @_enum "enum")) @definition.enum
(object_declaration name: (identifier) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function
; Constructors are named by their class (`Money.Money`): a secondary one is a member,
; a primary one (the class header) adds the name to the class.
(secondary_constructor "constructor" @name) @definition.method @constructor
(class_declaration (primary_constructor) @constructor)
(function_declaration
  [(user_type . (identifier) @scope)
   (nullable_type (user_type . (identifier) @scope))]
  .
  "."
  .
  name: (identifier) @name) @definition.method
; Interface and abstract members.
(class_declaration
  "interface"
  (class_body (function_declaration name: (identifier) @name) @declaration.method))
(function_declaration
  (modifiers (inheritance_modifier) @_abstract)
  name: (identifier) @name
  (#eq? @_abstract "abstract")) @declaration.method

(type_alias type: (identifier) @name) @declaration.type

; Properties and enum entries: names only unless split out.
(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.constant)
(class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.field)
(enum_class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.field)
(enum_entry . (identifier) @name) @definition.field

; Tests written as calls, named by their title verbatim (never qualified); a suite
; (describe/context) is a container, a test (it/test) a function.
; Kotest: test("…") {…}, context("…") {…}, describe/it, given/when/then.
((call_expression
   (call_expression
     . (identifier) @_suite
     (value_arguments . (value_argument (string_literal) @title)))
   (annotated_lambda (lambda_literal) @body))
 (#any-of? @_suite "describe" "context" "suite" "feature" "given" "when")) @definition.module
((call_expression
   (call_expression
     . (identifier) @_test
     (value_arguments . (value_argument (string_literal) @title)))
   (annotated_lambda (lambda_literal) @body))
 (#any-of? @_test "it" "test" "specify" "should" "scenario" "then" "example" "xtest" "xit")) @definition.function

; ---- leading comments ----------------------------------------------------

(line_comment) @leading
(block_comment) @leading

; ---- references ----------------------------------------------------------

(call_expression . (identifier) @reference.call)
(call_expression . (navigation_expression (identifier) @reference.call .))
(user_type (identifier) @reference.type)
(identifier) @reference.identifier
