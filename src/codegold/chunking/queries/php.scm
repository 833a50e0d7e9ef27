; codegold tags query: PHP. Capture names are described in README.md.
;
; Namespaces are not captured: they neither chunk nor qualify (`App\Billing\Invoice`
; is `Invoice`; its method `total` is `Invoice.total`).

; ---- definitions ---------------------------------------------------------

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @declaration.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
; Abstract and interface methods have no body.
(method_declaration name: (name) @name !body) @declaration.method

; Constants, properties and enum cases: names only unless split out.
(const_declaration (const_element (name) @name)) @definition.constant
(property_declaration (property_element name: (variable_name (name) @name))) @definition.field
(enum_case name: (name) @name) @definition.field

; Tests written as calls, named by their title verbatim (never qualified); a suite
; (describe/context) is a container, a test (it/test) a function.
; Pest: it('…', function () {…}), test('…', fn () => …), describe('…', …).
(expression_statement
  (function_call_expression
    function: (name) @_suite
    arguments: (arguments
      . (argument [(string) (encapsed_string)] @title)
      (argument [(anonymous_function body: (_) @body) (arrow_function body: (_) @body)])))
  (#any-of? @_suite "describe" "context" "suite" "feature" "given" "when")) @definition.module
(expression_statement
  (function_call_expression
    function: (name) @_test
    arguments: (arguments
      . (argument [(string) (encapsed_string)] @title)
      (argument [(anonymous_function body: (_) @body) (arrow_function body: (_) @body)])))
  (#any-of? @_test "it" "test" "specify" "should" "scenario" "then" "example")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call .))
(member_call_expression name: (name) @reference.call)
(nullsafe_member_call_expression name: (name) @reference.call)
(scoped_call_expression name: (name) @reference.call)
(object_creation_expression (name) @reference.call)
(object_creation_expression (qualified_name (name) @reference.call .))
(named_type (name) @reference.type)
(base_clause (name) @reference.type)
(class_interface_clause (name) @reference.type)
(name) @reference.identifier
