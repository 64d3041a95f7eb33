"""Scale-out on a Ray cluster: connecting (``cluster``) and the full-data evaluation
(``eval_ray``). Grading on Ray lives in ``refscore.grade.ray_engine``; see docs/scale.md."""
