"""The debounce has a maximum wait (issue 25, item 11): rescoring never starves.

While a reference file changed on disk every 100 ms, the user's own edit was not published within
15 s; edits every 50 ms for 5 minutes produced no publish at all (every change cancelled the run
in flight and restarted the debounce). Now a document rescheduled without a pause for
``MAX_WAIT_S`` gets a run that later changes do not cancel; what changed meanwhile is scored right
after it. Real server, real client.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from refscore.lsp.loop import MAX_WAIT_S
from tests.lsp import samples
from tests.lsp.harness import session, uri

pytestmark = pytest.mark.asyncio

#: Seconds a publish may take past the maximum wait on a 2-core machine, besides twice the time
#: the document's first scoring took (so a machine under load scales the bound with its own pace).
SLACK = 6.0


async def open_scored(s, path: Path) -> tuple[str, float]:
    """Open ``path`` and wait for its first summary: the document and the bound on its publish."""
    loop = asyncio.get_running_loop()
    opened = loop.time()
    doc = s.open(path)
    await s.wait_summary(doc, version=1)
    return doc, MAX_WAIT_S + SLACK + 2 * (loop.time() - opened)


def _versions_published(s, doc: str, since: int) -> list[int]:
    return [version for key, version, _ in s.published[since:] if key == doc and isinstance(version, int)]


async def test_edits_every_50_ms_are_published_within_the_maximum_wait(tmp_path: Path) -> None:
    # long enough that scoring it takes longer than the pause between two edits
    candidate = samples.write_pair(tmp_path, "typing", samples.CANDIDATE * 40)
    async with session(tmp_path) as s:
        doc, bound = await open_scored(s, candidate)
        loop = asyncio.get_running_loop()
        start, mark = loop.time(), len(s.published)
        first = None
        while loop.time() - start < bound + 2:
            s.insert(doc, 0, 0, "#")
            await asyncio.sleep(0.04)
            if first is None and [v for v in _versions_published(s, doc, mark) if v > 1]:
                first = loop.time() - start
        assert first is not None and first < bound, (first, bound)  # none at all before
        # once the typing stops, the last version is published as ever
        await s.wait_summary(doc, version=s.versions[doc])
        assert s.client.messages == []


async def test_a_reference_rewritten_every_100_ms_does_not_starve_the_users_edit(tmp_path: Path) -> None:
    candidate = samples.write_pair(tmp_path, "watched")
    reference = tmp_path / "watched.ref.py"
    async with session(tmp_path) as s:
        doc, bound = await open_scored(s, candidate)
        loop = asyncio.get_running_loop()
        version = s.insert(doc, 0, 0, "# my edit\n")
        start = loop.time()
        published, number = None, 0
        while loop.time() - start < bound + 2:
            number += 1
            reference.write_text(samples.REFERENCE + f"# {number}\n", encoding="utf-8")
            s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                types.FileEvent(uri=uri(reference), type=types.FileChangeType.Changed)]))
            await asyncio.sleep(0.1)
            summary = s.summary(doc)
            if published is None and summary is not None and summary.data.get("version") == version:
                published = loop.time() - start
        assert published is not None and published < bound, (published, bound)
