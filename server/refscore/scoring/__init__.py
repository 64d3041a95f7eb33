"""The one scoring pipeline: text in, typed report out. CLI, editor and grader all call it.

Entry points: ``report.ScoreRequest`` / ``report.ScoreReport`` (what goes in and comes out; the
report is frozen), ``pipeline`` (the named stages every engine composes; its ``finish`` is the
one place a report is made), ``scorer.LocalScorer`` (every stage in this process), ``pairing``
(per-function scores). Front ends get a Scorer from ``refscore.engines.open_scorer``, which sits
above this package and ``service/``.
"""
