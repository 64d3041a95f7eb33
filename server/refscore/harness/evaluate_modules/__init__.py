"""Hugging Face ``evaluate`` modules, loaded by path (``refscore.harness.evaluate_module_path``)."""
