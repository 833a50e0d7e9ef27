; The statements of a function body that assign a function to a property, `a.m = function
; …` and `a.m = b.m = (…) => …`: each a local definition named by its targets (included
; by _js_common.scm in every body it reads them in).
    [(expression_statement
       (assignment_expression
         left: (member_expression property: (property_identifier)) @name
         right: [(function_expression) (arrow_function) (generator_function)]))
     (expression_statement
       (assignment_expression
         left: (member_expression property: (property_identifier)) @name
         right: (assignment_expression
           left: (member_expression property: (property_identifier)) @name
           right: [(function_expression) (arrow_function) (generator_function)])))]
    @definition.function
