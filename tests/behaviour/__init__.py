"""Tests of the behaviour part of RefScore."""
