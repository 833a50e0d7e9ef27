; codegold tags query: Ruby. Capture names are described in README.md.
;
; A method is named by its innermost class or module (LanguageSpec.innermost_qualifier):
; `Billing::Invoice#total` is `Invoice.total` (and, as a second name,
; `Billing.Invoice.total`); `def self.build` and methods in `class << self` alike.
; Classes and modules keep their full path: `class A::B` in `module M` is `M.A.B`.

; ---- definitions ---------------------------------------------------------

(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
; `def Config.load` outside its class.
(singleton_method object: (constant) @scope) @definition.function

(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.module

; Constants: names only.
(assignment left: (constant) @name) @definition.constant
; `Point = Struct.new(:x, :y) do ... end`, `Klass = Class.new(Base) { ... }`,
; `Coord = Data.define(:lat) do ... end`: a class named by the constant.
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_maker
    method: (identifier) @_new
    block: [(do_block) (block)] @body)
  (#match? @_maker "^(Struct|Class|Module|Data)$")
  (#match? @_new "^(new|define)$")) @definition.class

; `Shell::Basic.class_eval do … end` (also class_exec, module_eval, module_exec,
; instance_eval) reopens the class: its methods are `Basic.say_status`. An impl: it
; defines its methods, not the class.
(call
  receiver: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)]
  method: (identifier) @_eval
  block: [(do_block) (block)] @body
  (#match? @_eval "^(class_eval|class_exec|module_eval|module_exec|instance_eval)$")) @definition.impl

; Methods made by define_method with a literal name, like `def`.
(call
  method: (identifier) @_define
  arguments: (argument_list . [(simple_symbol) @name (string (string_content) @name)])
  (#eq? @_define "define_method")) @definition.function
; Accessors `attr_accessor :host, :port` (also attr_reader, attr_writer, attr) define a
; method per symbol: names only, `Class.host`; Forwardable's `def_delegators :@app,
; :call` (the receiver excepted) and Rails' `delegate :name, to: :user` likewise.
(call
  !receiver
  method: (identifier) @_attr
  arguments: (argument_list [(simple_symbol) @name (string (string_content) @name)])
  (#any-of? @_attr "attr_accessor" "attr_reader" "attr_writer" "attr")) @definition.field
(call
  !receiver
  method: (identifier) @_delegate
  arguments: (argument_list . (_) [(simple_symbol) @name (string (string_content) @name)])
  (#eq? @_delegate "def_delegators")) @definition.field
(call
  !receiver
  method: (identifier) @_delegate
  arguments: (argument_list (simple_symbol) @name (pair))
  (#eq? @_delegate "delegate")) @definition.field

; Aliases: names only.
(alias name: (_) @name) @definition.field
(call
  method: (identifier) @_alias
  arguments: (argument_list . [(simple_symbol) @name (string (string_content) @name)])
  (#eq? @_alias "alias_method")) @definition.field

; Tests written as calls, named by their title verbatim (never qualified): RSpec and
; minitest/spec `describe "…" do`, `context`, `it "…" do`, `test "…" do`.
(call
  method: (identifier) @_suite
  arguments: (argument_list . (string) @title)
  block: [(do_block) (block)] @body
  (#any-of? @_suite "describe" "context" "feature" "shared_examples" "shared_examples_for"
                    "shared_context")) @definition.module
(call
  method: (identifier) @_test
  arguments: (argument_list . (string) @title)
  block: [(do_block) (block)] @body
  (#any-of? @_test "it" "specify" "example" "scenario" "test" "fit" "xit")) @definition.function

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call method: (identifier) @reference.call)
(call receiver: (constant) @reference.call method: (identifier) @_new (#eq? @_new "new"))
(constant) @reference.type
(identifier) @reference.identifier
