"""Tests of the api part of RefScore."""
