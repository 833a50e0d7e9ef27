; codegold tags query: Bash. Capture names are described in README.md.

; ---- definitions ---------------------------------------------------------

(function_definition name: (word) @name) @definition.function

; Script-level variables (`NAME=value`, `export NAME=value`): names only.
(program (variable_assignment name: (variable_name) @name) @definition.constant)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.constant)

; ---- leading comments ----------------------------------------------------

(comment) @leading

; ---- references ----------------------------------------------------------

(command name: (command_name (word) @reference.call))
(variable_name) @reference.identifier
