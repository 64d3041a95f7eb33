"""Tests of the embed part of RefScore."""
