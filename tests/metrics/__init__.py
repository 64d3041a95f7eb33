"""Tests of the metrics part of RefScore."""
