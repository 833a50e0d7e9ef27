; codegold tags query: Scala. Capture names are described in README.md.
;
; Packages are not captured. Objects are containers (`Money.apply`); an extension is
; an `impl` named by its receiver type: `extension (s: String) def toMoney` is
; `String.toMoney`.

; ---- definitions ---------------------------------------------------------

(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(type_definition name: (type_identifier) @name) @declaration.type
(extension_definition
  parameters: (parameters
    (parameter
      type: [(type_identifier) @name
             (generic_type type: (type_identifier) @name)]))) @definition.impl

(function_definition name: (identifier) @name) @definition.function
; Constructors are named by their class (`Retry.Retry`): an auxiliary `def this()` is a
; member, a primary one (the class parameters) adds the name to the class.
((function_definition name: (identifier) @_this) @constructor (#eq? @_this "this"))
(class_definition class_parameters: (class_parameters) @constructor)
; Abstract members.
(function_declaration name: (identifier) @name) @declaration.function

; Vals, vars and enum cases: names only unless split out.
(compilation_unit (val_definition pattern: (identifier) @name) @definition.constant)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.constant)
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
(template_body (val_declaration name: (identifier) @name) @declaration.field)
(simple_enum_case name: (identifier) @name) @definition.field
(full_enum_case name: (identifier) @name) @definition.field

; Tests written as calls, named by their title verbatim (never qualified); a suite
; (describe/context) is a container, a test (it/test) a function.
; ScalaTest: test("…") {…}, describe("…") { it("…") {…} }.
((call_expression
   function: (call_expression
     function: (identifier) @_suite
     arguments: (arguments . (string) @title))
   arguments: (block) @body)
 (#any-of? @_suite "describe" "context" "suite" "feature" "given" "when")) @definition.module
((call_expression
   function: (call_expression
     function: (identifier) @_test
     arguments: (arguments . (string) @title))
   arguments: (block) @body)
 (#any-of? @_test "it" "test" "specify" "should" "scenario" "then" "example" "ignore")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading
(block_comment) @leading

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (identifier) @reference.call))
(instance_expression (type_identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
