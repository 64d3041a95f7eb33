"""How each language's code is run in the sandbox: function calls and whole programs."""
