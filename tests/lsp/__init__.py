"""Helpers, workspaces and Neovim scripts for the language-server tests."""
