"""Tests of the classroom part of RefScore."""
