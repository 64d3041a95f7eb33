"""Keyword lists per language (``<language>.txt``), read by ``refscore.languages``."""
