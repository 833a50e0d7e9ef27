; The declaration of a file-level variable named through up to three pointer or array
; declarators (c.scm includes it once for each place such a declaration stands).
   (declaration
     declarator: [(identifier) @name
                  (pointer_declarator declarator: [(identifier) @name
                                                    (pointer_declarator declarator: [(identifier) @name
                                                                                     (pointer_declarator declarator: (identifier) @name)
                                                                                     (array_declarator declarator: (identifier) @name)])
                                                    (array_declarator declarator: [(identifier) @name
                                                                                     (pointer_declarator declarator: (identifier) @name)
                                                                                     (array_declarator declarator: (identifier) @name)])])
                  (array_declarator declarator: [(identifier) @name
                                                    (pointer_declarator declarator: [(identifier) @name
                                                                                     (pointer_declarator declarator: (identifier) @name)
                                                                                     (array_declarator declarator: (identifier) @name)])
                                                    (array_declarator declarator: [(identifier) @name
                                                                                     (pointer_declarator declarator: (identifier) @name)
                                                                                     (array_declarator declarator: (identifier) @name)])])
                  (init_declarator declarator: [(identifier) @name
                                                     (pointer_declarator declarator: [(identifier) @name
                                                                                      (pointer_declarator declarator: [(identifier) @name
                                                                                                                       (pointer_declarator declarator: (identifier) @name)
                                                                                                                       (array_declarator declarator: (identifier) @name)])
                                                                                      (array_declarator declarator: [(identifier) @name
                                                                                                                       (pointer_declarator declarator: (identifier) @name)
                                                                                                                       (array_declarator declarator: (identifier) @name)])])
                                                     (array_declarator declarator: [(identifier) @name
                                                                                      (pointer_declarator declarator: [(identifier) @name
                                                                                                                       (pointer_declarator declarator: (identifier) @name)
                                                                                                                       (array_declarator declarator: (identifier) @name)])
                                                                                      (array_declarator declarator: [(identifier) @name
                                                                                                                       (pointer_declarator declarator: (identifier) @name)
                                                                                                                       (array_declarator declarator: (identifier) @name)])])])]) @definition.constant
