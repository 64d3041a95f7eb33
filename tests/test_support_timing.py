"""The suite's one hang-guard factor (tests/support/timing.py): it scales every guard, and a bad
value is one clear error, not a guard of zero seconds."""

from __future__ import annotations

import pytest

from tests.support.timing import HANG_S, hang_guard


def test_guards_are_minutes_and_scale_with_the_slowdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFSCORE_TEST_SLOWDOWN", raising=False)
    assert hang_guard() == HANG_S >= 60 and hang_guard(30) == 30
    monkeypatch.setenv("REFSCORE_TEST_SLOWDOWN", "2.5")
    assert hang_guard() == 2.5 * HANG_S and hang_guard(30) == 75


@pytest.mark.parametrize("value", ["0", "-1", "fast", "nan", ""])
def test_a_bad_slowdown_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("REFSCORE_TEST_SLOWDOWN", value)
    with pytest.raises(ValueError, match="REFSCORE_TEST_SLOWDOWN must be a positive number"):
        hang_guard()



def test_the_per_test_time_limit_scales_with_the_slowdown(request: pytest.FixtureRequest,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-timeout's limit from pyproject (``timeout = 600``) is a guard too."""
    from tests.conftest import scale_time_limits

    marker = request.node.get_closest_marker("timeout")  # none, unless a slowdown scaled it already
    before = marker.args[0] if marker is not None else float(request.config.getini("timeout"))
    monkeypatch.setenv("REFSCORE_TEST_SLOWDOWN", "3")
    scale_time_limits(request.config, [request.node])
    assert request.node.get_closest_marker("timeout").args[0] == 3 * before


@pytest.mark.timeout(90)
def test_a_tests_own_time_limit_scales_with_the_slowdown(request: pytest.FixtureRequest,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import scale_time_limits

    before = request.node.get_closest_marker("timeout").args[0]  # 90, or already scaled by a slowdown
    monkeypatch.setenv("REFSCORE_TEST_SLOWDOWN", "2")
    scale_time_limits(request.config, [request.node])
    assert request.node.get_closest_marker("timeout").args[0] == 2 * before
