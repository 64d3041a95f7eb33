"""Tests of the eval part of RefScore."""
