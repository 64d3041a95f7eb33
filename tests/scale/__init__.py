"""Tests of the scale part of RefScore."""
