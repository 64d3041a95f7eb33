"""What ``refscore score`` prints on a terminal: the scores table (``render``) and the
CodeBERTScore heat view (``heat``). They read a finished ``ScoreReport``; nothing below them
(scoring and the metrics) knows how a report is shown."""
