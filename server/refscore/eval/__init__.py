"""Evidence for RefScore's scores: agreement with HumanEval tests and CoNaLa human grades.

``data`` (loading, sampling, the paper's normaliser), ``metrics`` (runners over RefScore's own
APIs), ``layers`` (several MiniLM layers per forward pass), ``correlation`` (the paper's tau,
Spearman, Pearson), ``cv`` and ``fit`` (cross-validation by problem, defaults, the combined
fit of the combined RefScore number, whose inputs, formula and file live in the product package
``refscore.combined``), ``runner`` and ``report`` (``refscore eval``).
"""
