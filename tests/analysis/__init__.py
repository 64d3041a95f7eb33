"""Tests of the analysis part of RefScore."""
