; codegold tags query: TypeScript, also used for TSX. Capture names are described in
; README.md.

; ---- definitions ---------------------------------------------------------

; Module-level variables: names only (a function value below makes them a function).
(program
  (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program
  (variable_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program
  (export_statement
    (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
(program
  (export_statement
    (variable_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
(program
  (ambient_declaration
    (lexical_declaration (variable_declarator name: (identifier) @name)) @declaration.constant))
(program
  (export_statement
    (ambient_declaration
      (lexical_declaration (variable_declarator name: (identifier) @name)) @declaration.constant)))
; ... and the same inside namespaces, which do not qualify names.
([(internal_module body: (statement_block
     [(lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant
      (export_statement
        (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)]))
  (module body: (statement_block
     [(lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant
      (export_statement
        (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)]))])

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @declaration.function

; const f = () => ...; const f = function () {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function


(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
; module.exports = class Application extends Emitter {...}: by the class's own name.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression) @_exports
      right: (class name: (type_identifier) @name))
    (#eq? @_exports "module.exports")) @definition.class)

(interface_declaration name: (type_identifier) @name) @declaration.interface
(type_alias_declaration name: (type_identifier) @name) @declaration.type
; A type alias of an object type is an interface by another spelling (`type KyOptions =
; {…}`): a container whose properties are named `KyOptions.timeout`, split when long.
(type_alias_declaration name: (type_identifier) @name value: (object_type) @body)
  @declaration.interface
(enum_declaration name: (identifier) @name) @definition.enum

; namespace N { } and declare module "m" { }
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: (string (string_fragment) @name)) @definition.module

; Class members (object literals other than the exported ones below are left alone).
(class_body
  (public_field_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]) @definition.field)
(class_body
  (method_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]) @definition.method)
(class_body
  (public_field_definition
    name: [(property_identifier) @name
           (private_property_identifier) @name
           (string (string_fragment) @name)]
    value: [(arrow_function) (function_expression)]) @definition.method)
(class_body
  (method_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method)
(class_body
  (abstract_method_signature name: (property_identifier) @name) @declaration.method)

; Interface members.
(interface_body
  (property_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.field)
(interface_body
  (method_signature name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method)

(type_alias_declaration
  value: (object_type
    (property_signature
      name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.field))
(type_alias_declaration
  value: (object_type
    (method_signature
      name: [(property_identifier) @name (string (string_fragment) @name)]) @declaration.method))

; Enum members.
(enum_body name: (property_identifier) @name @definition.field)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.field)

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
(program
  (expression_statement
    (assignment_expression
      left: (member_expression property: (property_identifier)) @name
      right: (class))
    (#not-eq? @name "module.exports")) @definition.class)
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
; Other values exported by name (exports.json = bodyParser.json): names only.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (_) @_exports property: (property_identifier)) @name)
    (#match? @_exports "^(module\\.)?exports$")) @definition.constant)

; Object.defineProperty(obj, 'name', {get ...}) and helpers shaped like it
; (defineGetter(req, 'host', function host() {...})): `obj.name`.
(program
  (expression_statement
    (call_expression
      function: (member_expression) @_define
      arguments: (arguments . (_) @scope . (string (string_fragment) @name)))
    (#eq? @_define "Object.defineProperty")) @definition.function)
(program
  (expression_statement
    (call_expression
      function: (identifier) @_define
      arguments: (arguments
        . (identifier) @scope
        . (string (string_fragment) @name)
        . [(function_expression) (arrow_function) (object)]))
    (#match? @_define "^define[A-Z_]")) @definition.function)

; @include _js_members  (queries/_js_members.scm, shared with javascript)

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

; ---- leading comments and decorators -------------------------------------

(comment) @leading
(class_body (decorator) @leading)

; ---- references ----------------------------------------------------------

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(type_identifier) @reference.type
(identifier) @reference.identifier
(property_identifier) @reference.identifier
(shorthand_property_identifier) @reference.identifier
