; ---- property assignments (SPEC §1: named by the assignment target as written) ----
;
; res.send = function send(body) {...}; X.prototype.m = ...; exports.parse = ... (the
; language's symbol rewrites make these `res.send`, `X.m`, `parse`).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: [(function_expression) (arrow_function) (generator_function)])
    (#not-eq? @name "module.exports")) @definition.function)
; Several names in one statement: a.get = a.header = function ...
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (assignment_expression
        left: (member_expression property: (property_identifier)) @name
        right: [(function_expression) (arrow_function) (generator_function)]))) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (assignment_expression
        left: (member_expression property: (property_identifier)) @name
        right: (assignment_expression
          left: (member_expression property: (property_identifier)) @name
          right: [(function_expression) (arrow_function) (generator_function)])))) @definition.function)
; A variable and properties assigned one function in one statement, `var serve =
; exports.serve = function serve(root) {…}`, `const a = b.c = d.e = () => …`: every target.
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: [(assignment_expression
                left: (member_expression property: (property_identifier)) @name @_target
                right: [(function_expression) (arrow_function) (generator_function)])
               (assignment_expression
                left: (member_expression property: (property_identifier)) @name @_target
                right: (assignment_expression
                  left: (member_expression property: (property_identifier)) @name @_target
                  right: [(function_expression) (arrow_function) (generator_function)]))]))
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: [(assignment_expression
                left: (member_expression property: (property_identifier)) @name @_target
                right: [(function_expression) (arrow_function) (generator_function)])
               (assignment_expression
                left: (member_expression property: (property_identifier)) @name @_target
                right: (assignment_expression
                  left: (member_expression property: (property_identifier)) @name @_target
                  right: [(function_expression) (arrow_function) (generator_function)]))]))
   (export_statement
     (lexical_declaration
       (variable_declarator
         name: (identifier) @name
         value: (assignment_expression
           left: (member_expression property: (property_identifier)) @name @_target
           right: [(function_expression) (arrow_function) (generator_function)]))))
  ] @definition.function
  (#not-eq? @_target "module.exports"))
; `const Legacy = module.exports = function Legacy(options) {…}`: by the variable.
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: (assignment_expression
         left: (member_expression) @_exports
         right: [(function_expression) (arrow_function) (generator_function)])))
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: (assignment_expression
         left: (member_expression) @_exports
         right: [(function_expression) (arrow_function) (generator_function)])))
  ] @definition.function
  (#eq? @_exports "module.exports"))
; The same assignments made in the body of a function declaration (a factory filling in
; the object it returns: `router.use = router.add = (path, handler) => …` in
; `createRouter`): local, so no chunk of their own, but the targets as written are
; symbols of the function's chunk (`this.m` in `function Foo` is `Foo.m`).
(function_declaration
  body: (statement_block
; @include _js_body_assignments
  ))
; The same in the body of a function that is itself a definition written as an
; expression: a plugin exported as `export default (o, c, d) => { proto.format = function
; (…) {…} }` (Day.js), `module.exports = function (schema) { schema.methods.x = … }`, a
; module-level `const plugin = (api) => { api.m = … }`: the targets as written are symbols
; of that function's chunk (`proto.format`, `d.tz.setDefault`). Callbacks passed to calls
; are no definitions and are left alone.
(program
  (export_statement
    value: (_ body: (statement_block
; @include _js_body_assignments
      ))))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression)
      right: (_ body: (statement_block
; @include _js_body_assignments
        )))))
(program
  (_ (variable_declarator
    value: (_ body: (statement_block
; @include _js_body_assignments
      )))))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (class body: (class_body) @body))
    (#not-eq? @name "module.exports")) @definition.class)
; A class assigned through a chain, `module.exports = exports = internals.Template =
; class {…}`: by the target nearest the class (`internals.Template`, members
; `internals.Template.render`); `module.exports = class {…}`: by the file's name.
(program
  (expression_statement
    (assignment_expression
      right: [(assignment_expression
               left: (member_expression property: (property_identifier)) @name
               right: (class !name body: (class_body) @body))
              (assignment_expression
                right: (assignment_expression
                  left: (member_expression property: (property_identifier)) @name
                  right: (class !name body: (class_body) @body)))])
    (#not-match? @name "^(module\\.)?exports$")) @definition.class)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports @filename
      right: (class !name body: (class_body) @body))
    (#eq? @_exports "module.exports")) @definition.class)
; module.exports = function name() {...}: by its own name; anonymous: by the file's name.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports
      right: (function_expression name: (identifier) @name))
    (#eq? @_exports "module.exports")) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports @filename
      right: [(function_expression !name) (arrow_function)])
    (#eq? @_exports "module.exports")) @definition.function)
; A function made by wrapping a function literal in a call, `const handler =
; asyncHandler(async (req, res) => {…})`, `export const useStore = create((set) => …)`,
; `const f = memoize(function (x) {…})`: a function named by its variable.
; Module level only (a `jest.fn(() => …)` in a test is no definition), and not a value
; computed with a callback (`const t = argv.find((a) => …)`).
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: (call_expression
         function: (_) @_wrap
         arguments: (arguments [(arrow_function) (function_expression) (generator_function)]))))
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: (call_expression
         function: (_) @_wrap
         arguments: (arguments [(arrow_function) (function_expression) (generator_function)]))))
  ] @definition.function
  (#not-match? @_wrap "\\.(map|filter|find|findIndex|findLast|reduce|some|every|forEach|flatMap|sort|then|catch|finally|replace)$"))
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression
          function: (_) @_wrap
          arguments: (arguments [(arrow_function) (function_expression) (generator_function)])))) @definition.function)
  (#not-match? @_wrap "\\.(map|filter|find|findIndex|findLast|reduce|some|every|forEach|flatMap|sort|then|catch|finally|replace)$"))
; Other values exported by name (exports.json = bodyParser.json): names only.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (_) @_exports property: (property_identifier)) @name)
    (#match? @_exports "^(module\\.)?exports$")) @definition.constant)

; Object.defineProperty(obj, 'name', {get ...}) and helpers shaped like it
; (defineGetter(req, 'host', function host() {...}), express-session's
; defineMethod(Session.prototype, 'touch', function touch() {...}), chai's
; utils.addMethod(Assertion.prototype, 'x', fn)): `obj.name`, `Session.touch`.
(program
  (expression_statement
    (call_expression
      function: (member_expression) @_define
      arguments: (arguments . (_) @scope . (string (string_fragment) @name)))
    (#eq? @_define "Object.defineProperty")) @definition.function)
(program
  (expression_statement
    (call_expression
      function: [(identifier) (member_expression)] @_define
      arguments: (arguments
        . [(identifier) (member_expression)] @scope
        . (string (string_fragment) @name)
        . [(function_expression) (arrow_function) (generator_function) (object)]))
    (#match? @_define "(^|\\.)(define[A-Z_]\\w*|add(Method|Property|ChainableMethod|Getter|Setter))$")) @definition.function)

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

; ---- exported objects: qualified by the file's base name (lib/request.js -> request) ----
;
; module.exports = {...}; const proto = module.exports = {...}; export default {...};
; and X.prototype = {...} (qualified by X).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports @filename
      right: (object) @body)
    (#eq? @_exports "module.exports")) @definition.class)
(program
  (lexical_declaration
    (variable_declarator
      value: (assignment_expression
        left: (member_expression) @_exports @filename
        right: (object) @body))
    (#eq? @_exports "module.exports")) @definition.class)
(program
  (variable_declaration
    (variable_declarator
      value: (assignment_expression
        left: (member_expression) @_exports @filename
        right: (object) @body))
    (#eq? @_exports "module.exports")) @definition.class)
(program (export_statement value: (object) @body @filename) @definition.class)
; An anonymous default export is named by the file too: `export default class extends
; Base {…}` in src/router.ts is `router` (members `router.run`); `export default
; function (req) {…}` and `export default (req) => {…}` in src/handler.ts are `handler`.
(program
  (export_statement value: (class !name body: (class_body) @body) @filename) @definition.class)
(program
  (export_statement
    value: [(function_expression !name) (arrow_function body: (statement_block))] @filename)
  @definition.function)
; A default export made by a call, `export default restArguments(function (func, context)
; {…})` in underscore's modules/bind.js, is a function named by the file (`bind`); another
; value computed at the export, `export default createAssigner(allKeys, true)`,
; `export default nativeIsArray || tagTester('Array')`, `export default _.templateSettings
; = {…}` (also `_.templateSettings`), `export default new Store()`, a constant named by
; the file (`defaults`, `isArray`, `templateSettings`).
(program
  (export_statement
    value: (call_expression
      arguments: (arguments [(function_expression) (arrow_function) (generator_function)])) @filename)
  @definition.function)
(program
  (export_statement
    value: [(call_expression)
            (new_expression)
            (ternary_expression)
            (binary_expression right: [(call_expression) (identifier) (member_expression)])
            (assignment_expression left: (member_expression property: (property_identifier)) @name
              right: [(object) (call_expression) (identifier) (member_expression)])] @filename)
  @definition.constant)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier) @_prototype) @name
      right: (object) @body)
    (#eq? @_prototype "prototype")) @definition.class)

; Their members: methods, getters and setters by name, function-valued properties;
; other properties are names only.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports
      right: (object
        [(method_definition
           name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
         (pair
           key: [(property_identifier) @name (string (string_fragment) @name)]
           value: [(function_expression) (arrow_function) (generator_function)]) @definition.method
         (pair key: [(property_identifier) @name (string (string_fragment) @name)]) @definition.field]))
    (#match? @_exports "^module\\.exports$|\\.prototype$")))
(program
  [(lexical_declaration
     (variable_declarator
       value: (assignment_expression
         left: (member_expression) @_exports
         right: (object
           [(method_definition
              name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
            (pair
              key: [(property_identifier) @name (string (string_fragment) @name)]
              value: [(function_expression) (arrow_function) (generator_function)]) @definition.method
            (pair key: [(property_identifier) @name (string (string_fragment) @name)]) @definition.field]))))
   (variable_declaration
     (variable_declarator
       value: (assignment_expression
         left: (member_expression) @_exports
         right: (object
           [(method_definition
              name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
            (pair
              key: [(property_identifier) @name (string (string_fragment) @name)]
              value: [(function_expression) (arrow_function) (generator_function)]) @definition.method
            (pair key: [(property_identifier) @name (string (string_fragment) @name)]) @definition.field]))))]
  (#eq? @_exports "module.exports"))
(program
  (export_statement
    value: (object
      [(method_definition
         name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
       (pair
         key: [(property_identifier) @name (string (string_fragment) @name)]
         value: [(function_expression) (arrow_function) (generator_function)]) @definition.method
       (pair key: [(property_identifier) @name (string (string_fragment) @name)]) @definition.field])))

; A module-level object literal with function members, `const defaults = { validateStatus:
; function validateStatus(status) {...} }`: a container named by its variable, holding
; `defaults.validateStatus` (its other properties are left alone).
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: (object
         [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body))
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: (object
         [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body))
  ] @definition.class)
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (object
          [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body)) @definition.class))
(program
  [(lexical_declaration
     (variable_declarator name: (identifier) value: (object [(method_definition
           name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
         (pair
           key: [(property_identifier) @name (string (string_fragment) @name)]
           value: [(function_expression) (arrow_function) (generator_function)]) @definition.method])))
   (variable_declaration
     (variable_declarator name: (identifier) value: (object [(method_definition
           name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
         (pair
           key: [(property_identifier) @name (string (string_fragment) @name)]
           value: [(function_expression) (arrow_function) (generator_function)]) @definition.method])))
   (export_statement
     (lexical_declaration
       (variable_declarator name: (identifier) value: (object [(method_definition
           name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
         (pair
           key: [(property_identifier) @name (string (string_fragment) @name)]
           value: [(function_expression) (arrow_function) (generator_function)]) @definition.method]))))])

; An object literal with function members assigned to a property at module level,
; `internals.methods = { assert(value, schema) {…}, attempt(…) {…} }` (joi), `Foo.defaults
; = {…}`: a container named by the target as written (`internals.methods.attempt`); its
; other properties are left alone. (`module.exports = {…}` and `X.prototype = {…}` are
; above.)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (object
        [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body)
    (#not-match? @name "^(module\\.)?exports$|\\.prototype$")) @definition.class)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @_target
      right: (object
        [(method_definition
           name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
         (pair
           key: [(property_identifier) @name (string (string_fragment) @name)]
           value: [(function_expression) (arrow_function) (generator_function)]) @definition.method]))
    (#not-match? @_target "^(module\\.)?exports$|\\.prototype$")))

; The same object assigned through a chain, `jQuery.fn = jQuery.prototype = { toArray:
; function () {…} }`: by the first target as written (`jQuery.fn.toArray`).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (assignment_expression
        left: (member_expression)
        right: (object
          [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body))
    (#not-match? @name "^(module\\.)?exports$")) @definition.class)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @_target
      right: (assignment_expression
        left: (member_expression)
        right: (object
          [(method_definition
             name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
           (pair
             key: [(property_identifier) @name (string (string_fragment) @name)]
             value: [(function_expression) (arrow_function) (generator_function)]) @definition.method])))
    (#not-match? @_target "^(module\\.)?exports$")))

; Members mixed into a constructor by a top-level call, Object.assign(X.prototype, {...}),
; utils.inherits(AxiosError, Error, { toJSON: function toJSON() {...} }), _.extend(X, {...}):
; `X.m`. The call is an `impl`: it defines its members, not X.
(program
  (expression_statement
    (call_expression
      function: [(identifier) (member_expression)] @_mixin
      arguments: (arguments
        . [(identifier) (member_expression)] @name
        (object
          [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body))
    (#match? @_mixin "(^|\\.)(assign|inherits|extend|mixin)$")) @definition.impl)
(program
  (expression_statement
    (call_expression
      function: [(identifier) (member_expression)] @_mixin
      arguments: (arguments
        . [(identifier) (member_expression)]
        (object [(method_definition
             name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
           (pair
             key: [(property_identifier) @name (string (string_fragment) @name)]
             value: [(function_expression) (arrow_function) (generator_function)]) @definition.method])))
    (#match? @_mixin "(^|\\.)(assign|inherits|extend|mixin)$")))

; An object literal passed alone to `X.extend({…})` or `X.mixin({…})` extends X itself
; (jQuery's `jQuery.extend({ isPlainObject: function (obj) {…} })`, `jQuery.fn.extend({
; attr: … })`, lodash's `_.mixin({…})`): its function members are `X.m` as written
; (`jQuery.isPlainObject`, `jQuery.fn.attr`); the call is an `impl` of X, as above.
(program
  (expression_statement
    (call_expression
      function: (member_expression
        object: [(identifier) (member_expression)] @name
        property: (property_identifier) @_mixin)
      arguments: (arguments
        .
        (object
          [(method_definition) (pair value: [(function_expression) (arrow_function) (generator_function)])]) @body
        .))
    (#match? @_mixin "^(extend|mixin)$")) @definition.impl)
(program
  (expression_statement
    (call_expression
      function: (member_expression property: (property_identifier) @_mixin)
      arguments: (arguments
        .
        (object [(method_definition
             name: [(property_identifier) @name (string (string_fragment) @name)]) @definition.method
           (pair
             key: [(property_identifier) @name (string (string_fragment) @name)]
             value: [(function_expression) (arrow_function) (generator_function)]) @definition.method])
        .))
    (#match? @_mixin "^(extend|mixin)$")))

; export default cond && function httpAdapter(config) {...}: by the function's name.
(program
  (export_statement
    value: [(function_expression name: (identifier) @name)
            (binary_expression right: (function_expression name: (identifier) @name))]) @definition.function)

; ---- tests written as calls: named by their title, verbatim (never qualified) ----
;
; describe("…", () => {...}) and its kin are containers; it("…")/test("…") functions.
; Also describe.only(…), it.skip(…), test.each(table)("…", fn).
(expression_statement
  (call_expression
    function: [(identifier) @_suite
               (member_expression object: (identifier) @_suite)
               (call_expression function: (member_expression object: (identifier) @_suite))]
    arguments: (arguments
      . [(string) (template_string)] @title
      [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))
  (#any-of? @_suite "describe" "context" "suite" "fdescribe" "xdescribe")) @definition.module
(expression_statement
  (call_expression
    function: [(identifier) @_test
               (member_expression object: (identifier) @_test)
               (call_expression function: (member_expression object: (identifier) @_test))]
    arguments: (arguments
      . [(string) (template_string)] @title
      [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))
  (#any-of? @_test "it" "test" "specify" "fit" "xit" "xtest" "bench")) @definition.function
; A subtest made through the test's handle, tape's and node:test's `t.test("…", (st) =>
; {…})` (only `.test`: `x.it(…)` or `x.describe(…)` are nobody's test API).
(expression_statement
  (call_expression
    function: (member_expression
      object: (identifier)
      property: (property_identifier) @_subtest)
    arguments: (arguments
      . [(string) (template_string)] @title
      [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))
  (#eq? @_subtest "test")) @definition.function
