"""Text analysis shared by the metrics and the editor: tokens and comments, code-point offsets,
content-keyed caches of analyses (``document``), and the top-level functions of a text. Parse
trees themselves are read by ``refscore.parsing``."""
