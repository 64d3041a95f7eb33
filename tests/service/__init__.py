"""Tests of the service part of RefScore."""
