; codegold tags query: Python. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

(function_definition name: (identifier) @name) @definition.function

(class_definition name: (identifier) @name) @definition.class

(type_alias_statement left: (type (identifier) @name)) @declaration.type

; Module constants and class attributes: names only.
(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.constant)

(module
  (expression_statement
    (assignment left: (pattern_list (identifier) @name))) @definition.constant)

(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name)) @definition.field))

; ---- declarations --------------------------------------------------------

; A Protocol is an interface.
(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [(identifier) @_base
     (attribute attribute: (identifier) @_base)
     (subscript value: [(identifier) @_base (attribute attribute: (identifier) @_base)])])
  (#eq? @_base "Protocol")) @declaration.interface

; Abstract methods and typing overloads.
(decorated_definition
  (decorator
    [(identifier) @_decorator
     (attribute attribute: (identifier) @_decorator)])
  (#any-of? @_decorator "abstractmethod" "abstractproperty" "abstractclassmethod"
                        "abstractstaticmethod" "overload")
  definition: (function_definition name: (identifier) @name) @declaration.function)

; In a Protocol or an ABC, a method whose body is only `...`, `pass` or a docstring.
(class_definition
  superclasses: (argument_list
    [(identifier) @_base
     (attribute attribute: (identifier) @_base)
     (subscript value: [(identifier) @_base (attribute attribute: (identifier) @_base)])])
  (#any-of? @_base "Protocol" "ABC")
  body: (block
    [(function_definition
       name: (identifier) @name
       body: (block
         .
         [(expression_statement [(ellipsis) (string)]) (pass_statement)]
         .)) @declaration.function
     (decorated_definition
       definition: (function_definition
         name: (identifier) @name
         body: (block
           .
           [(expression_statement [(ellipsis) (string)]) (pass_statement)]
           .)) @declaration.function)]))

(class_definition
  superclasses: (argument_list
    [(identifier) @_base
     (attribute attribute: (identifier) @_base)
     (subscript value: [(identifier) @_base (attribute attribute: (identifier) @_base)])])
  (#any-of? @_base "Protocol" "ABC")
  body: (block
    [(function_definition
       name: (identifier) @name
       body: (block
         .
         (expression_statement (string))
         .
         [(expression_statement (ellipsis)) (pass_statement)]
         .)) @declaration.function
     (decorated_definition
       definition: (function_definition
         name: (identifier) @name
         body: (block
           .
           (expression_statement (string))
           .
           [(expression_statement (ellipsis)) (pass_statement)]
           .)) @declaration.function)]))

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call function: (identifier) @reference.call)
(call function: (attribute attribute: (identifier) @reference.call))
(identifier) @reference.identifier
