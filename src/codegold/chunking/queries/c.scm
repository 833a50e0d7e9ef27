; codegold tags query: C. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

; A function's name is the identifier of its function_declarator, wherever that sits
; (under pointer declarators for `char *f(void)`); it belongs to the innermost
; definition or prototype containing it.
(function_declarator declarator: (identifier) @name)

(function_definition) @definition.function
; A function whose header is a macro call, `PHP_FUNCTION(strlen) {…}` (the parser reads
; a return type and a parenthesised name), is named by the macro's argument.
(function_definition
  type: (type_identifier) @_macro
  declarator: (parenthesized_declarator (identifier) @name)
  (#match? @_macro "^[A-Z][A-Z0-9_]*$"))

; Prototypes: `int f(void);`, `char *f(void);`, `char **f(void);`.
(declaration
  declarator: [(function_declarator declarator: (identifier))
               (pointer_declarator
                 declarator: [(function_declarator declarator: (identifier))
                              (pointer_declarator
                                declarator: (function_declarator
                                  declarator: (identifier)))])]) @declaration.function

; Structs, unions and enums with a body. `typedef struct tag {...} name_t;` keeps the
; struct (the typedef is its wrapper) and adds `name_t`; an anonymous struct is named
; by its typedef.
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.constant
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      [(pointer_declarator declarator: (type_identifier) @name)
       (type_identifier) @name]))) @definition.constant

; Fields (function pointers included) and enumerators: names only unless split out.
(field_declaration
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)
               (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
               (array_declarator declarator: (field_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (field_identifier) @name)))]) @definition.field
(enumerator name: (identifier) @name) @definition.field

; Macros with a value (include guards have none): names only.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.constant
; A function-like macro continued over several lines is a definition of its own.
((preproc_function_def name: (identifier) @name) @definition.function
 (#match? @definition.function "\\\\\n"))

; File-level variables, also inside #if blocks and extern "C" { }: names only. The name is
; the identifier under up to three pointer or array declarators (`*const names[]`,
; `table[][2]`, `*x[][2]`), with or without an initialiser. (The alternatives of
; `declarator:` are listed flat: an alternation written directly inside another one
; there matches only some of its branches.)
([(translation_unit
; @include _c_file_variable
   )
  (preproc_ifdef
; @include _c_file_variable
   )
  (preproc_if
; @include _c_file_variable
   )
  (preproc_elif
; @include _c_file_variable
   )
  (preproc_else
; @include _c_file_variable
   )
  (declaration_list
; @include _c_file_variable
   )])

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(type_identifier) @reference.type
(identifier) @reference.identifier
(field_identifier) @reference.identifier
