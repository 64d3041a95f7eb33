"""RefScore: score code against a reference solution (CodeBLEU, CodeBERTScore), live and in batch."""

__version__ = "0.1.0"
