"""Subcommands of the ``refscore`` CLI, one module each."""
