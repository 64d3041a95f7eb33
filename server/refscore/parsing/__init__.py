"""Tree-sitter trees read in one pass: the flat tree (``flat``), subtree keys (``trees``) and the
garbage-collector pause around building many small objects (``gc_pause``). Below ``dataflow/`` and
``analysis/``, which both read these trees."""
