; ---- members made in a loop over names (computed member assignment) ----
;
; methods.forEach(function (method) { app[method] = function (path) {...} }),
; utils.forEach(['get', 'head'], function (method) { Axios.prototype[method] = ... }),
; for (const m of list) { obj[m] = ... } at the top level: one definition named by the
; target as written (`app[method]`), or, when the loop runs over a literal list of
; strings (`@key`), by each name it makes (`Axios.get`, `Axios.head`).
(program
  (expression_statement
    (call_expression
      function: (member_expression object: (_) @_list property: (property_identifier) @_each)
      arguments: (arguments
        .
        [(function_expression
           body: (statement_block
             (expression_statement
               (assignment_expression
                 left: (subscript_expression index: (identifier)) @name
                 right: [(function_expression) (arrow_function) (call_expression)]))))
         (arrow_function
           body: (statement_block
             (expression_statement
               (assignment_expression
                 left: (subscript_expression index: (identifier)) @name
                 right: [(function_expression) (arrow_function) (call_expression)]))))]))
    (#eq? @_each "forEach")) @definition.function)
(program
  (expression_statement
    (call_expression
      function: (member_expression object: (array (string (string_fragment) @key)))))
  @definition.function)
(program
  (expression_statement
    (call_expression
      function: [(identifier) (member_expression)] @_each
      arguments: (arguments
        .
        (_) @_list
        .
        [(function_expression
           body: (statement_block
             (expression_statement
               (assignment_expression
                 left: (subscript_expression index: (identifier)) @name
                 right: [(function_expression) (arrow_function) (call_expression)]))))
         (arrow_function
           body: (statement_block
             (expression_statement
               (assignment_expression
                 left: (subscript_expression index: (identifier)) @name
                 right: [(function_expression) (arrow_function) (call_expression)]))))]))
    (#match? @_each "(^|\\.)(forEach|each)$")) @definition.function)
(program
  (expression_statement
    (call_expression
      function: [(identifier) (member_expression)] @_each
      arguments: (arguments . (array (string (string_fragment) @key))))
    (#match? @_each "(^|\\.)(forEach|each)$")) @definition.function)
(program
  (for_in_statement
    right: (_) @_list
    body: (statement_block
      (expression_statement
        (assignment_expression
          left: (subscript_expression index: (identifier)) @name
          right: [(function_expression) (arrow_function) (call_expression)])))) @definition.function)
(program
  (for_in_statement right: (array (string (string_fragment) @key))) @definition.function)

; node-delegates: delegate(proto, 'response').method('redirect').access('body')... makes
; `redirect` and `body` members of the exported object: qualified by the file's base
; name (`context.redirect` in lib/context.js); `@member` names count for a container.
(program
  (expression_statement
    (call_expression) @_chain @filename
    (#match? @_chain "^delegate\\s*\\(")) @definition.class)
(call_expression
  function: (member_expression object: (call_expression) property: (property_identifier) @_verb)
  arguments: (arguments . (string (string_fragment) @member))
  (#any-of? @_verb "method" "access" "getter" "setter" "fluent"))
