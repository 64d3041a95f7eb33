"""Evidence for RefScore's scores: agreement with HumanEval tests and CoNaLa human grades.

``data`` (loading, sampling, the paper's normaliser), ``metrics`` (runners over RefScore's own
APIs), ``layers`` (several MiniLM layers per forward pass), ``correlation`` (the paper's tau,
Spearman, Pearson), ``cv`` and ``fit`` (cross-validation by problem, defaults, the combined
fit), ``combined`` (the pure ``combined_score`` function and its ``combined.json``), ``runner``
and ``report`` (``refscore eval``).
"""
