; codegold tags query: Lua. Capture names are described in README.md.
;
; `function M.new()` and `M.new = function()` are `M.new`; `function M:close()` is
; `M.close` (a method); `function a.b.c()` is `a.b.c`.

; ---- definitions ---------------------------------------------------------

(function_declaration name: (identifier) @name) @definition.function
(function_declaration
  name: (dot_index_expression table: (_) @scope field: (identifier) @name)) @definition.function
(function_declaration
  name: (method_index_expression table: (_) @scope method: (identifier) @name)) @definition.method
(assignment_statement
  (variable_list
    .
    name: [(identifier) @name
           (dot_index_expression table: (_) @scope field: (identifier) @name)]
    .)
  (expression_list . value: (function_definition) .)) @definition.function

; File-level locals (`local M = {}`): names only.
(chunk
  (variable_declaration
    (assignment_statement (variable_list name: (identifier) @name))) @definition.constant)

; Tests written as calls, named by their title verbatim (never qualified); a suite
; (describe/context) is a container, a test (it/test) a function.
; busted: describe("…", function() it("…", function() … end) end).
((function_call
   name: (identifier) @_suite
   arguments: (arguments . (string) @title (function_definition body: (_) @body)))
 (#any-of? @_suite "describe" "context" "suite" "feature" "given" "when" "insulate" "expose")) @definition.module
((function_call
   name: (identifier) @_test
   arguments: (arguments . (string) @title (function_definition body: (_) @body)))
 (#any-of? @_test "it" "test" "specify" "should" "scenario" "then" "example" "pending")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(function_call name: (identifier) @reference.call)
(function_call name: (dot_index_expression field: (identifier) @reference.call))
(function_call name: (method_index_expression method: (identifier) @reference.call))
(identifier) @reference.identifier
