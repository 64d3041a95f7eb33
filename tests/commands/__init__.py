"""Tests of the commands part of RefScore."""
