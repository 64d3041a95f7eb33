"""``refscore setup`` given places and interpreters that cannot work: the problem in one line
(in the plan, and as a ``failed`` event with ``--json``), never an internal error, and two set-ups
of one environment at once never undo each other. The real command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.timing import hang_guard

REPO = Path(__file__).resolve().parents[2]


def _setup(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    return subprocess.run([sys.executable, "-m", "refscore", "setup", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def test_a_python_that_runs_but_is_no_python_is_named_so(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'not today' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    done = _setup("--plan", "--json", "--env", str(tmp_path / "env"), "--python", str(fake))
    assert done.returncode == 1, done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert problems == [f"{fake} does not run as Python (exit status 1: not today)"]


def _events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_an_environment_under_a_file_is_a_problem_of_the_plan_and_a_failed_event(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me", encoding="utf-8")
    env = tmp_path / "notes.txt" / "env"
    done = _setup("--json", "--env", str(env))
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    events = _events(done.stdout)
    why = f"{env} cannot be made: {tmp_path / 'notes.txt'} is not a folder"
    assert events[0]["event"] == "plan" and events[0]["problems"] == [why]
    assert events[-1]["event"] == "failed" and why in str(events[-1]["reason"])
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_a_folder_where_the_log_goes_is_a_problem_not_an_internal_error(tmp_path: Path) -> None:
    env = tmp_path / "env"
    (tmp_path / "env-setup.log").mkdir()
    done = _setup("--env", str(env))
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert f"the log {tmp_path / 'env-setup.log'} is a folder" in done.stderr
    assert not env.exists()


def test_a_log_that_cannot_be_written_when_the_set_up_starts_is_a_failed_event(tmp_path: Path) -> None:
    from dataclasses import replace

    from refscore.provision.install import run_setup
    from refscore.provision.plan import SetupOptions, make_plan

    plan = make_plan(SetupOptions(env=tmp_path / "env", base_python=sys.executable, source=str(REPO)))
    (tmp_path / "taken").write_text("a file", encoding="utf-8")  # made after the plan was checked
    events: list[dict[str, object]] = []
    assert not run_setup(replace(plan, log=str(tmp_path / "taken" / "env-setup.log")), events.append)
    assert [e["event"] for e in events] == ["failed"]
    assert str(events[0]["reason"]).startswith(f"cannot write the log {tmp_path / 'taken' / 'env-setup.log'}")


def _slow_python(tmp_path: Path) -> Path:
    """A stand-in base Python: it answers the plan's probe, and its ``-m venv`` step lasts until the
    test writes ``release`` beside it (no clock: a busy machine starts the second set-up slowly)."""
    fake, release = tmp_path / "slow-python", tmp_path / "release"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = \"-c\" ]; then echo '{\"version\": [3, 11], \"venv\": true}'; exit 0; fi\n"
                    f"i=0; while [ ! -e '{release}' ] && [ $i -lt {int(hang_guard(600) * 20)} ]; do sleep 0.05; i=$((i+1)); done\n"
                    "exit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    return fake


def test_a_second_set_up_of_the_same_environment_waits_for_none_and_undoes_nothing(tmp_path: Path) -> None:
    import time

    env, fake = tmp_path / "env", _slow_python(tmp_path)
    base = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    first = subprocess.Popen([sys.executable, "-m", "refscore", "setup", "--json", "--env", str(env), "--python",
                              str(fake)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=base)
    try:
        deadline = time.monotonic() + hang_guard()
        while not (env / ".refscore-setup").exists():  # the first one is in its first step
            assert time.monotonic() < deadline and first.poll() is None, first.communicate()
            time.sleep(0.05)
        second = _setup("--json", "--env", str(env), "--python", str(fake), timeout=hang_guard())
        assert first.poll() is None, "the second returned at once, while the first still runs"
        assert (env / ".refscore-setup").exists(), "the first one's environment was removed under it"
    finally:
        (tmp_path / "release").touch()  # the first one's venv step ends
        first.communicate(timeout=hang_guard())
    assert second.returncode == 1, second.stderr
    failed = _events(second.stdout)[-1]
    assert failed["event"] == "failed" and "another refscore setup is making" in str(failed["reason"])
    assert "another refscore setup" not in (tmp_path / "env-setup.log").read_text(encoding="utf-8")


def test_the_first_line_of_a_set_up_says_what_it_does_once(tmp_path: Path) -> None:
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me", encoding="utf-8")
    done = _setup("--env", str(foreign))
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first.startswith("Setting up CodeBERTScore in ") and "?" not in first, first
    assert first.count("on disk") == 1 and f"log: {tmp_path / 'mine-setup.log'}" in first, first
