"""A full disk under the scored parts (issue 45 item 12): the run stops in one line naming the part
it could not write, leaves no half-written temporary part, and a later run removes the ones an
older version (or a killed run) left behind."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from refscore.grade import parts as parts_module
from refscore.grade.parts import PartStore
from refscore.safe_write import OutputFileError
from tests.grade.test_grade_interrupt_class import _class

pytestmark = pytest.mark.timeout(300)
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}
KEY = "0123456789abcdef" * 2


def _temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".b*.tmp"))


def test_a_part_that_cannot_be_written_leaves_no_temporary_and_names_its_path(tmp_path: Path, monkeypatch) -> None:
    store = PartStore(tmp_path / "parts")
    store.write(0, KEY, [(0, {"id": "a"})])

    def disk_full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(parts_module.os, "fsync", disk_full)
    with pytest.raises(OutputFileError) as caught:
        store.write(0, KEY, [(1, {"id": "b"})])
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "parts" / f"b00000000-{KEY[:32]}-1-1-1.jsonl"))
    assert "No space left on device" in message and "rerun the same command to finish" in message
    assert _temporaries(tmp_path / "parts") == []
    assert [p.name for p in (tmp_path / "parts").iterdir()] == [f"b00000000-{KEY[:32]}-0-0-1.jsonl"]


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 256 KiB tmpfs at ``tmp_path/disk`` (skipped where mounting is not permitted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)],
                                 capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"cannot mount a tmpfs here: {error}")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=30)


def test_a_full_disk_under_the_parts_is_one_line_naming_the_part(tmp_path: Path, small_disk: Path) -> None:
    cmd = _class(tmp_path) + ["-q", "--cache", str(small_disk / "cache")]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=ENV)
    assert result.returncode == 3, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("refscore: note:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    parts = small_disk / "cache" / "parts"
    assert lines[0].startswith(f"refscore: {parts}/b00000000-") and "No space left on device" in lines[0], lines[0]
    assert _temporaries(parts) == []
    assert any(parts.glob("b*.jsonl"))  # what was written before the disk filled stays


def test_a_later_run_removes_stale_temporary_parts(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "a.py").write_text("def f(y):\n    return y + 1\n")
    parts = tmp_path / "out" / "grade.parts" / "parts"
    parts.mkdir(parents=True)
    stale = parts / f".b00000000-{KEY}-0-7-8.jsonl.{uuid.uuid4().hex}.tmp"
    stale.write_bytes(b'{"offset": 0, "row": {"id"')  # cut short by a full disk
    other = parts / "notes.tmp"  # not a part's temporary: left alone
    other.write_text("mine")
    result = subprocess.run([sys.executable, "-m", "refscore", "grade", "-r", str(tmp_path / "ref.py"),
                             str(tmp_path / "a.py"), "--metrics", "codebleu", "-o", str(tmp_path / "out"), "-q"],
                            capture_output=True, text=True, timeout=120, env=ENV)
    assert result.returncode == 0, result.stderr
    assert not stale.exists() and other.exists()
    assert any(parts.glob("b*.jsonl"))
