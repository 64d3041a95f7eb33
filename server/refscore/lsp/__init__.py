"""The RefScore language server (``refscore serve``): live scores as diagnostics, hovers and lenses.

One feature per module: ``references`` (finding the reference), ``settings`` (the ``refscore``
configuration section), ``scorers`` (which Scorer runs what), ``loop`` (debounced scoring, one
task per document), ``diagnostics``/``hover``/``lenses``/``tokens``/``commands`` (rendering a
``ScoreReport`` as LSP), ``positions`` (code points to UTF-16 at the edge), ``server`` (wiring).
No metric code lives here: everything is computed by the shared Scorer.
"""
