"""The HTML report with CodeBERTScore token colours, looked at in headless Chromium."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from refscore.cli import main  # noqa: E402
from tests.data.grade.classgen import make_class  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def bert_report(tmp_path_factory):
    """The whole generated class graded with both metrics (the default)."""
    root = tmp_path_factory.mktemp("bertclass")
    gen = make_class(root)
    out = root / "out"
    code = main(["grade", "--mapping", str(gen.mapping), "-o", str(out), "-q", "--title", "CS101 week 3"])
    html = (out / "grade.html").read_text(encoding="utf-8")
    import json

    data = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    unavailable = [e for s in data["submissions"] for e in s["errors"] if "codebertscore unavailable" in e]
    if unavailable:
        pytest.skip(f"CodeBERTScore cannot run here: {unavailable[0]}")
    return gen, code, out, html, data


def test_codebertscore_columns_and_token_colours(bert_report):
    gen, code, _, html, data = bert_report
    assert code == 0
    scored = [s for s in data["submissions"] if not s["errors"]]
    assert len(scored) == len(gen.scored)
    for sub in scored:
        for key in ("codebertscore_precision", "codebertscore_recall", "codebertscore_f1", "codebertscore_f3"):
            assert 0.0 <= sub[key] <= 1.0 + 1e-6
        assert sub["codebertscore_model"] and sub["codebertscore_signature"].startswith("cbs|")
    copies = [s for s in scored if gen.expected[s["id"]] == "copy"]
    others = [s for s in scored if gen.expected[s["id"]] != "copy"]
    assert min(c["codebertscore_f1"] for c in copies) > max(o["codebertscore_f1"] for o in others) - 1e-6
    ran = {s["problem"] for s in data["submissions"] if s.get("behaviour") is not None}  # behaviour's problems
    assert "BERT F1" in html and html.count("<svg") == 2 * 9 + len(ran)  # each problem its own histograms
    assert re.search(r'title="similarity 0\.\d{3}', html)  # candidate tokens coloured from alignments
    assert "http:" not in html.lower() and "https:" not in html.lower()


def _png_size_and_colours(path: Path) -> tuple[int, int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def _chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", f"--user-data-dir={profile}"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=90)


@pytest.mark.skipif(not Path(CHROMIUM).exists(),
                    reason="headless Chromium is not installed (apt-get install -y chromium)")
def test_report_renders_in_headless_chromium(bert_report, tmp_path):
    _, _, out, _, _ = bert_report
    url = (out / "grade.html").resolve().as_uri()
    dom = _chromium(["--dump-dom", url], tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="1"' in dom.stdout  # the inline script ran to its end
    shot = tmp_path / "grade-report.png"
    result = _chromium([f"--screenshot={shot}", "--window-size=1400,1000", "--hide-scrollbars", url], tmp_path)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    width, height, colours = _png_size_and_colours(shot)
    assert (width, height) == (1400, 1000)
    assert colours > 50  # not a blank page
    if os.environ.get("REFSCORE_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(shot, REPO / "docs" / "grade-report.png")
