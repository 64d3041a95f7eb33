"""The language server's memory plateaus while a document is edited (issue 25, item 12): the real
``refscore serve`` over stdio, a 6 KB document given a new text every 0.3 s, its RSS sampled.
Every version's analyses used to stay in the text caches (about 0.6 MB per version: +30 MB or
more over the second half of this soak); now the server bounds them and the second half grows by
a few MB at most. ``benchmarks/bench_lsp_memory.py`` is the 5-minute soak."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.timing import hang_guard

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_lsp_memory.py"
pytestmark = pytest.mark.timeout(900)


def _bench():
    spec = importlib.util.spec_from_file_location("bench_lsp_memory", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_memory_plateaus_while_editing() -> None:
    # it ends after its 110 versions; the seconds only guard a hang (a busy machine sends them slowly)
    soak = _bench().soak(seconds=hang_guard(600), interval=0.3, sample=3.0, versions=110)
    versions = soak.samples[-1][1]
    assert versions >= 110 and soak.published >= 40, (soak.published, soak.stderr[-2000:])
    growth = soak.growth_second_half()
    assert growth < 12.0, f"RSS grew {growth:.1f} MB over the last {versions // 2} versions: {soak.samples}"


CHECK = """
from refscore.analysis import cache
from refscore.lsp.phases import CACHE_CHARS, CACHE_ENTRIES
from refscore.lsp.app import build_server
build_server(allow_daemon=False)
from refscore.analysis.document import analyse_tokens
later = cache.sized_cache(max_entries=10_000, max_chars=100_000_000)(lambda text: len(text))
for version in range(CACHE_ENTRIES * 3):
    analyse_tokens(f"x = {version}\\n" * 50)
    later(f"y = {version}\\n")
assert analyse_tokens.cache_info().currsize == CACHE_ENTRIES, analyse_tokens.cache_info()
assert later.cache_info().currsize == CACHE_ENTRIES and later.cache_info().max_chars == CACHE_CHARS
print("bounded")
"""


def test_the_servers_caches_are_bounded() -> None:
    """What bounds it: the server bounds every text cache of its process, also those made after
    it started (in a child process: the bounds are the process's)."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=hang_guard(),
                         env={**os.environ, "PYTHONPATH": str(root / "server")})
    assert run.stdout.strip() == "bounded", run.stderr[-2000:]
