"""Scale-out on a Ray cluster: connecting to it (``cluster``). Grading on Ray lives in
``refscore.grade.ray_engine``, the evaluation's Ray tasks in ``refscore.eval.execute``; see
docs/scale.md."""
