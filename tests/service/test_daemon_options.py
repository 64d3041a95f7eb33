"""`refscore daemon start|run` settings that cannot work are usage errors (exit 2, one line),
before any process is started: `--max-batch 0` made every CodeBERTScore request wait forever,
`--idle-timeout nan` made `daemon status` an internal error, `--device potato` and `--layer 99`
were accepted and failed on the first request. Real CLI runs in a private runtime folder."""

from __future__ import annotations

import pytest

from tests.support.daemons import daemon_pids_in, refscore
from tests.service.test_daemon import place  # noqa: F401 - the fixture

pytestmark = pytest.mark.timeout(300)

BAD = [
    (("--max-batch", "0"), "--max-batch 0: must be at least 1"),
    (("--workers", "-1"), "--workers -1: must be at least 1"),
    (("--lanes", "0"), "--lanes 0: must be at least 1"),
    (("--large-chars", "0"), "--large-chars 0: must be at least 1"),
    (("--idle-timeout", "nan"), "--idle-timeout nan: must be 0 or more seconds"),
    (("--idle-timeout", "-5"), "--idle-timeout -5: must be 0 or more seconds"),
    (("--batch-wait", "inf"), "--batch-wait inf: must be 0 or more milliseconds"),
    (("--max-message-mb", "0"), "--max-message-mb 0: must be more than 0"),
    (("--device", "potato"), "--device 'potato': choose cpu, cuda"),
    (("--layer", "99"), "--layer 99: all-MiniLM-L6-v2 has hidden layers 0 to 6"),
]


@pytest.mark.parametrize("action", ["start", "run"])
@pytest.mark.parametrize("option, says", BAD, ids=[" ".join(o) for o, _ in BAD])
def test_settings_that_cannot_work_are_refused(place, action: str, option: tuple[str, ...],  # noqa: F811
                                               says: str) -> None:
    result = refscore("daemon", action, "--no-preload" if action == "start" else "--idle-timeout", *(
        () if action == "start" else ("1",)), *option, env=place.env, timeout=60)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert daemon_pids_in(place.run) == []


@pytest.mark.parametrize("value", ["abc", "nan", "-1"])
def test_an_unusable_idle_variable_is_one_line(place, value: str) -> None:  # noqa: F811
    """`REFSCORE_DAEMON_IDLE=abc` killed the started daemon with `internal error: ValueError`
    (exit 5); `nan` made `daemon status` an internal error."""
    result = refscore("daemon", "start", "--no-preload", env={**place.env, "REFSCORE_DAEMON_IDLE": value}, timeout=60)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip() == f"refscore: $REFSCORE_DAEMON_IDLE {value!r}: must be 0 or more seconds (0: never)"
    assert daemon_pids_in(place.run) == []


def test_good_settings_still_start(place) -> None:  # noqa: F811
    started = refscore("daemon", "start", "--no-preload", "--idle-timeout", "0", "--workers", "1", "--layer", "5",
                       "--max-batch", "8", "--batch-wait", "0", env=place.env)
    assert started.returncode == 0, started.stderr
    assert refscore("daemon", "status", env=place.env).returncode == 0
    assert refscore("daemon", "stop", env=place.env).returncode == 0
