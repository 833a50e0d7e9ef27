; codegold tags query: Ruby. Capture names are described in README.md.
;
; Modules and classes both qualify what they hold: `Billing::Invoice#total` is
; `Billing.Invoice.total`, and `def self.build` in `Invoice` is `Invoice.build`.
; `class A::B` is qualified by its written scope (`A.B`).

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

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(call method: (identifier) @reference.call)
(call receiver: (constant) @reference.call method: (identifier) @_new (#eq? @_new "new"))
(constant) @reference.type
(identifier) @reference.identifier
