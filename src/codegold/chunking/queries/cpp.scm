; codegold tags query: C++. Capture names are described in README.md.
;
; Namespaces are not captured: they neither chunk nor qualify (like Java packages).
; An out-of-line member `void Foo::bar() {}` (also `ns::Foo::bar`, `Foo<T>::bar`) is
; qualified by its innermost scope: `Foo.bar`; a namespace-qualified free function
; `void ns::f() {}` reads the same way (`ns.f`), as the syntax cannot tell them apart.

; ---- definitions ---------------------------------------------------------

; A function's name is the name in its function_declarator, wherever that sits (under
; pointer or reference declarators); it belongs to the innermost definition or
; prototype containing it.
(function_declarator
  declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name
  (#not-match? @name "^[A-Z_]*TEST[A-Z_]*$"))
; A test written as a macro, googletest's `TEST(ParserTest, ParsesEmpty) {…}` (also
; TEST_F, TEST_P, TYPED_TEST, CppUTest's TEST): `ParserTest.ParsesEmpty`; one name
; argument, `BOOST_AUTO_TEST_CASE(parses_empty)`, is the test's name.
(function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list
      .
      (parameter_declaration !declarator type: (type_identifier) @scope)
      .
      (parameter_declaration !declarator type: (type_identifier) @name)
      .))
  (#match? @_macro "^[A-Z_]*TEST[A-Z_]*$")) @definition.function
(function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list . (parameter_declaration !declarator type: (type_identifier) @name) .))
  (#match? @_macro "^[A-Z_]*TEST[A-Z_]*$")) @definition.function
; Tests written as macro calls with a title, Catch2's `TEST_CASE("…", "[tag]") {…}` and
; `SECTION("…") {…}` (doctest's `TEST_CASE`, `SUBCASE`, `TEST_SUITE`, BDD `SCENARIO`,
; `GIVEN`, `WHEN`, `THEN`): named by their title verbatim. The grammar reads the call as
; a statement and its block as the next one (`@next_body`). Cases and suites are
; containers (a long one is split at its sections), sections functions.
((expression_statement
   (call_expression
     function: (identifier) @_case
     arguments: (argument_list . (string_literal) @title)))
 .
 (compound_statement) @next_body
 (#any-of? @_case "TEST_CASE" "SCENARIO" "TEMPLATE_TEST_CASE" "TEMPLATE_PRODUCT_TEST_CASE"
   "TEST_SUITE")) @definition.module
((expression_statement
   (call_expression
     function: (identifier) @_case
     arguments: (argument_list . (_) . (string_literal) @title)))
 .
 (compound_statement) @next_body
 (#any-of? @_case "TEST_CASE_METHOD" "TEMPLATE_TEST_CASE_METHOD" "TEST_CASE_FIXTURE"))
 @definition.module
((expression_statement
   (call_expression
     function: (identifier) @_section
     arguments: (argument_list . (string_literal) @title)))
 .
 (compound_statement) @next_body
 (#any-of? @_section "SECTION" "DYNAMIC_SECTION" "SUBCASE" "GIVEN" "AND_GIVEN" "WHEN"
   "AND_WHEN" "THEN" "AND_THEN")) @definition.function
(function_declarator declarator: (template_function name: (identifier) @name))
(function_declarator
  declarator: (qualified_identifier
    scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
    name: [(identifier) (destructor_name) (operator_name)] @name))
(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
      name: [(identifier) (destructor_name) (operator_name)] @name)))
(function_declarator
  declarator: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (destructor_name) (operator_name)] @name))))

(function_definition) @definition.function
(function_definition
  declarator: [(function_declarator declarator: (qualified_identifier))
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier)))
               (reference_declarator (function_declarator declarator: (qualified_identifier)))]) @definition.method

; Prototypes, in headers and class bodies (`int f(int);`, `virtual void g() = 0;`).
([(declaration
    declarator: [(function_declarator
                   declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)])
                 (pointer_declarator
                   declarator: (function_declarator
                     declarator: [(identifier) (field_identifier) (operator_name)]))
                 (reference_declarator
                   (function_declarator
                     declarator: [(identifier) (field_identifier) (operator_name)]))])
  (field_declaration
    declarator: [(function_declarator
                   declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)])
                 (pointer_declarator
                   declarator: (function_declarator
                     declarator: [(identifier) (field_identifier) (operator_name)]))
                 (reference_declarator
                   (function_declarator
                     declarator: [(identifier) (field_identifier) (operator_name)]))])] @declaration.function)

; Classes, structs, unions and enums with a body; a typedef names an anonymous one.
(class_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (_)) @definition.class
(struct_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (_)) (class_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; Type aliases, data members, enumerators and macros: names only unless split out.
(type_definition declarator: (type_identifier) @name) @definition.constant
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      [(pointer_declarator declarator: (type_identifier) @name)
       (type_identifier) @name]))) @definition.constant
(alias_declaration name: (type_identifier) @name) @definition.constant
(field_declaration
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)
               (reference_declarator (field_identifier) @name)
               (array_declarator declarator: (field_identifier) @name)]) @definition.field
(enumerator name: (identifier) @name) @definition.field
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.constant
; A function-like macro continued over several lines is a definition of its own.
((preproc_function_def name: (identifier) @name) @definition.function
 (#match? @definition.function "\\\\\n"))

; Namespace-level variables and constants: names only.
([(translation_unit
   (declaration
     declarator: [(identifier) @name
                  (init_declarator
                    declarator: [(identifier) @name
                                 (pointer_declarator declarator: (identifier) @name)
                                 (reference_declarator (identifier) @name)
                                 (array_declarator declarator: (identifier) @name)])]) @definition.constant)
  (declaration_list
   (declaration
     declarator: [(identifier) @name
                  (init_declarator
                    declarator: [(identifier) @name
                                 (pointer_declarator declarator: (identifier) @name)
                                 (reference_declarator (identifier) @name)
                                 (array_declarator declarator: (identifier) @name)])]) @definition.constant)])

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (template_function name: (identifier) @reference.call))
(new_expression type: (type_identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
(field_identifier) @reference.identifier
(namespace_identifier) @reference.identifier
