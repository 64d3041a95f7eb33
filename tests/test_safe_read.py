"""Unit tests of the one safe reader (issue 16, defects 1 and 4): the byte cap holds whatever size
a file reports, and a path swapped for a FIFO between the check and the open is still refused
without blocking. ``os.stat`` is faked only to stage those races."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from refscore import safe_read
from refscore.errors import InputFileError
from refscore.files.sources import read_source

pytestmark = pytest.mark.timeout(60)


class _Stat:
    def __init__(self, real: os.stat_result, size: int, mode: int | None = None) -> None:
        self.st_mode = real.st_mode if mode is None else mode
        self.st_size = size


def test_cap_holds_when_the_reported_size_lies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "grows.py"
    path.write_bytes(b"x = 1\n" * 100)
    real_stat = os.stat
    monkeypatch.setattr(safe_read.os, "stat", lambda p, *a, **k: _Stat(real_stat(p), 0))
    with pytest.raises(InputFileError, match="more than 100 bytes"):
        safe_read.read_capped(path, 100)
    assert safe_read.read_capped(path, 600) == b"x = 1\n" * 100


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_swapped_in_after_the_check_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "swapped.py"
    os.mkfifo(fifo)
    real_stat = os.stat
    regular = real_stat(__file__).st_mode
    monkeypatch.setattr(safe_read.os, "stat", lambda p, *a, **k: _Stat(real_stat(p), 10, regular))
    with pytest.raises(InputFileError, match="named pipe"):
        safe_read.read_capped(fifo, 1000)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_messages_name_the_kind_of_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="/dev/zero: is a character device, not a regular file"):
        read_source("/dev/zero")
    with pytest.raises(InputFileError, match="is a directory"):
        read_source(tmp_path)
    with pytest.raises(InputFileError, match="no such file"):
        read_source(tmp_path / "missing.py")
    with pytest.raises(InputFileError, match="no such file"):
        read_source(tmp_path / "missing" / "deeper.py")
    with pytest.raises(InputFileError, match="not a valid file name"):
        read_source("bad\x00name.py")
