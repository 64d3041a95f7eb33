"""Metrics: pure functions over analysed documents (no I/O, no parsing)."""
