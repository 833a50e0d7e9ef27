; codegold tags query: Rust. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @declaration.function
(macro_definition name: (identifier) @name) @definition.function

; Items made by a macro call at item level whose first argument is a name:
; `rgtest!(r16, |dir, cmd| {...});`, `test_case!(name ...)` are named by it (comments
; before it are no argument).
; (`#not-any-of?` is not evaluated by py-tree-sitter: `#not-match?` it is.)
(source_file
  (expression_statement
    (macro_invocation
      macro: (identifier) @_macro
      (token_tree . [(line_comment) (block_comment)]* . (identifier) @name))
    (#not-match? @_macro "^(lazy_static|thread_local|cfg_if|bitflags|include|macro_rules|assert|assert_eq|println|eprintln)$")) @definition.function)
(source_file
  (macro_invocation
    macro: (identifier) @_macro
    (token_tree . [(line_comment) (block_comment)]* . (identifier) @name)
  (#not-match? @_macro "^(lazy_static|thread_local|cfg_if|bitflags|include|macro_rules|assert|assert_eq|println|eprintln)$")) @definition.function)
(declaration_list
  (macro_invocation
    macro: (identifier) @_macro
    (token_tree . [(line_comment) (block_comment)]* . (identifier) @name)
  (#not-match? @_macro "^(lazy_static|thread_local|cfg_if|bitflags|include|macro_rules|assert|assert_eq|println|eprintln)$")) @definition.function)
; `bitflags! { pub struct Flags: u32 { ... } }` defines the structs it names.
(source_file
  (macro_invocation macro: (identifier) @_macro (token_tree "struct" . (identifier) @name)
  (#eq? @_macro "bitflags")) @definition.struct)
(declaration_list
  (macro_invocation macro: (identifier) @_macro (token_tree "struct" . (identifier) @name)
  (#eq? @_macro "bitflags")) @definition.struct)

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @declaration.trait
(type_item name: (type_identifier) @name) @declaration.type
(associated_type name: (type_identifier) @name) @declaration.type

; `impl Type` and `impl Trait for Type` both qualify their methods with Type (SPEC §1),
; never with the trait: the base name of generic (`Foo<T>` -> Foo), scoped
; (`crate::Regex` -> Regex), primitive (`str`), reference and pointer (`&'a mut Foo` ->
; Foo) and trait-object (`dyn Sink` -> Sink) types; slices, arrays and tuples are
; rewritten to rustdoc's `slice`, `array`, `tuple` (languages.py). A blanket impl over
; one of its own type parameters (`impl<M: Matcher> Matcher for &M`) is named by its
; trait instead (`Matcher.find_at`; structural.py).
(impl_item
  type: [(type_identifier) @name
         (primitive_type) @name
         (scoped_type_identifier name: (type_identifier) @name)
         (generic_type type: (type_identifier) @name)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
         (dynamic_type trait: (type_identifier) @name)
         (dynamic_type trait: (scoped_type_identifier name: (type_identifier) @name))
         (dynamic_type trait: (generic_type type: (type_identifier) @name))
         (array_type) @name
         (tuple_type) @name
         (unit_type) @name
         (reference_type type: [(type_identifier) @name
                          (primitive_type) @name
                          (scoped_type_identifier name: (type_identifier) @name)
                          (generic_type type: (type_identifier) @name)
                          (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
                          (dynamic_type trait: (type_identifier) @name)
                          (dynamic_type trait: (scoped_type_identifier name: (type_identifier) @name))
                          (dynamic_type trait: (generic_type type: (type_identifier) @name))
                          (array_type) @name
                          (tuple_type) @name
                          (unit_type) @name])
         (pointer_type type: [(type_identifier) @name
                          (primitive_type) @name
                          (scoped_type_identifier name: (type_identifier) @name)
                          (generic_type type: (type_identifier) @name)
                          (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
                          (dynamic_type trait: (type_identifier) @name)
                          (dynamic_type trait: (scoped_type_identifier name: (type_identifier) @name))
                          (dynamic_type trait: (generic_type type: (type_identifier) @name))
                          (array_type) @name
                          (tuple_type) @name
                          (unit_type) @name])]) @definition.impl

; Inline modules are namespaces (see LanguageSpec.namespace_kinds); `mod m;` is not.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module

; Constants, statics, fields and variants: names only unless split out.
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.field

; ---- leading comments and attributes -------------------------------------

(line_comment) @leading
(block_comment) @leading
(attribute_item) @leading

; `//!` and `/*! ... */` document the module they sit in, not the item below them: a run
; of them standing alone on their lines is module documentation (role `docs`; a chunk of
; its own from `min_member_lines` lines on, structural.py).
(line_comment (inner_doc_comment_marker)) @docs
(block_comment (inner_doc_comment_marker)) @docs

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(call_expression
  function: (generic_function function: [(identifier) @reference.call
                                          (scoped_identifier name: (identifier) @reference.call)
                                          (field_expression field: (field_identifier) @reference.call)]))
(macro_invocation macro: (identifier) @reference.call)
(struct_expression name: (type_identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
(field_identifier) @reference.identifier
