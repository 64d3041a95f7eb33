"""Tests of the grade part of RefScore."""
