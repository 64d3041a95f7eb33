"""Ctrl-C on a real block-engine run (`refscore grade --block-lines N`), as a terminal sends it:
SIGINT to the whole process group, with SIGINT's default handling restored in the child (a job
started in the background inherits it ignored).

* During scoring: exit 130, the parts stay, and partial reports (CSV, JSON, HTML) are written
  with every row, the unscored ones marked interrupted; a rerun finishes from the parts.
* While the reports are written (after the last block is scored; long for a big run): the reports
  were lost ("interrupted; rerun", nothing written); now they are written whole from the parts.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.grade.test_grade_signal import write_rows

pytestmark = pytest.mark.timeout(240)
ITEMS = 1500


def _command(tmp: Path) -> list[str]:
    return [sys.executable, "-m", "refscore", "grade", "--jsonl", str(tmp / "rows.jsonl"), "--metrics", "codebleu",
            "--block-lines", "100", "-o", str(tmp / "out"), "--json", str(tmp / "out.json"), "--progress", "lines"]


def _in_own_group() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setpgid(0, 0)


def _interrupt(tmp: Path, ready: Callable[[str], bool]) -> tuple[int, str]:
    """Run the grade, send SIGINT to its process group once ``ready(stderr_so_far)``; (exit, stderr)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(_command(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_in_own_group)
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(iter(proc.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and proc.poll() is None and not ready("".join(seen)):
            time.sleep(0.005)
        assert proc.poll() is None, f"finished before it could be interrupted: {''.join(seen)}"
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
        reader.join(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, "".join(seen)


def _parts(tmp: Path) -> list[Path]:
    return sorted((tmp / "out" / "grade.parts" / "parts").glob("b*.jsonl"))


def _reports(tmp: Path) -> tuple[dict, list[dict]]:
    data = json.loads((tmp / "out.json").read_text())
    with open(tmp / "out" / "grade.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(data["submissions"]) == len(rows) == ITEMS
    assert "<html" in (tmp / "out" / "grade.html").read_text()[:2000].lower()
    return data, rows


def test_ctrl_c_while_blocks_are_scored_leaves_parts_and_partial_reports(tmp_path: Path) -> None:
    write_rows(tmp_path / "rows.jsonl", ITEMS)
    code, stderr = _interrupt(tmp_path, lambda _: bool(_parts(tmp_path)))
    assert code == 130, stderr
    assert "Traceback" not in stderr and "rerun the same command" in stderr
    data, _ = _reports(tmp_path)
    assert data["settings"]["interrupted"] is True
    done = [s for s in data["submissions"] if s["codebleu_native"] is not None]
    assert 0 < len(done) < ITEMS
    assert all("interrupted" in s["errors"][0] for s in data["submissions"] if s["codebleu_native"] is None)
    kept = sum(len(p.read_text().splitlines()) for p in _parts(tmp_path))
    assert kept >= len(done)
    rerun = subprocess.run(_command(tmp_path) + ["-q"], capture_output=True, text=True, timeout=200,
                           env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert rerun.returncode == 0, rerun.stderr
    settings = _reports(tmp_path)[0]["settings"]
    assert settings["from_cache"] >= len(done) and settings["from_cache"] + settings["scored_now"] == ITEMS


def test_ctrl_c_while_the_reports_are_written_still_writes_them(tmp_path: Path) -> None:
    write_rows(tmp_path / "rows.jsonl", ITEMS)
    def writing(seen: str) -> bool:  # the last block scored, a report's temporary file open
        return f"{ITEMS}/{ITEMS} (100%)" in seen and any((tmp_path / "out").glob(".grade.csv.*"))

    code, stderr = _interrupt(tmp_path, writing)
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted while writing the reports" in stderr, stderr
    data, rows = _reports(tmp_path)
    assert data["settings"]["interrupted"] is True
    assert all(s["codebleu_native"] is not None for s in data["submissions"])  # every block was scored
    assert all(row["codebleu_native"] for row in rows)
    # nothing is left to do: no "rerun to finish", and the page does not count unscored rows
    assert "rerun the same command" not in stderr and "every submission is scored" in stderr, stderr
    assert "The run was interrupted" not in (tmp_path / "out" / "grade.html").read_text()
