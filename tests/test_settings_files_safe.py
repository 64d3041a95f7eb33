"""Files named by options, the rubric and the environment are read with the safe reader (issue 45,
item 4): a FIFO or a device is one clear error at once, never a hang or an endless read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from refscore.errors import InputFileError
from refscore.classroom.adjustments import read_adjustments
from refscore.classroom.anonymise import read_key
from refscore.classroom.rubric import RubricError, load_rubric

pytestmark = pytest.mark.timeout(60)  # a hang fails the test instead of stalling the suite


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_a_rubric_that_is_a_fifo_or_a_device_is_one_line(fifo: Path) -> None:
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(RubricError) as caught:
            load_rubric(path)
        assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_an_adjustments_file_or_key_that_is_a_fifo_is_one_line(fifo: Path) -> None:
    with pytest.raises(InputFileError):
        read_adjustments(fifo)
    with pytest.raises(InputFileError):
        read_key(fifo)
    with pytest.raises(InputFileError):
        read_key(Path("/dev/zero"))


def test_a_fitted_file_named_by_the_environment_that_is_a_fifo_gives_no_number(fifo: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from refscore.combined import model
    from refscore.scoring import headline

    monkeypatch.setenv(headline.FIT_ENV, str(fifo))
    headline.headline_model.cache_clear()
    model._load.cache_clear()
    try:
        assert headline.headline_model() is None
    finally:
        monkeypatch.delenv(headline.FIT_ENV)
        headline.headline_model.cache_clear()


@pytest.mark.parametrize("body, said", [
    ("points = 1e300\nlinear = { floor = 0.3, ceiling = 0.9 }\nstep = 1e-300\n", "'points' must be a number from 0 to"),
    ("points = 10\nlinear = { floor = 0.3, ceiling = 0.9 }\nstep = 1e-300\n", "'step' must be a number from"),
    ("[problem.a]\npoints = 1e308\n", "'points' must be a number from 0 to"),
])
def test_huge_rubric_numbers_are_refused_before_scoring(tmp_path: Path, body: str, said: str) -> None:
    """Issue 45, item 10: ``points = 1e300`` with ``step = 1e-300`` ended in an OverflowError after
    scoring, and ``points = 1e308`` gave ``inf`` totals."""
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(body)
    with pytest.raises(RubricError, match=said):
        load_rubric(rubric)
