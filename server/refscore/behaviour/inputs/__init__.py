"""Inputs made from what a teacher or researcher has: the reference, its examples, an inputs file."""
