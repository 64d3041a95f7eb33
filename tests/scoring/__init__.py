"""Tests of the scoring part of RefScore."""
