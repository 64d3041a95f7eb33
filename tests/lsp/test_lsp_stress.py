"""End to end: twelve documents open and edits sent as fast as the client can (hundreds a
second, for five seconds and 600 edits at least, in bursts and pauses): every hover is answered
meanwhile (the server never freezes), each document ends with the summary of its last version,
and nothing reaches the user (no message, no traceback in the log messages)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from tests.lsp import samples
from tests.lsp.harness import session

pytestmark = pytest.mark.asyncio


async def test_rapid_edits_in_many_documents_keep_the_server_answering(tmp_path: Path) -> None:
    candidates = [samples.write_pair(tmp_path, f"s{i}") for i in range(12)]
    async with session(tmp_path) as s:
        docs = [s.open(c) for c in candidates]
        for doc in docs:
            await s.wait_summary(doc, version=1)
        lines = {doc: samples.CANDIDATE.count("\n") for doc in docs}
        rnd = random.Random(7)
        loop = asyncio.get_running_loop()
        end, edits, hovers = loop.time() + 5.0, 0, 0
        while loop.time() < end or edits < 600:  # on a busy machine fewer bursts fit in 5 s: go on
            for _ in range(rnd.choice((5, 20, 60))):
                doc = rnd.choice(docs)
                if rnd.random() < 0.2 and doc != docs[0]:  # docs[0] keeps its summary on line 0
                    s.insert(doc, 0, 0, "\n")
                    lines[doc] += 1
                else:
                    s.insert(doc, rnd.randrange(lines[doc]), 0, rnd.choice("ab(){}:#'\" 😀"))
                edits += 1
            hover = await s.hover(docs[0], 0, 1)  # s.hover fails after harness.WAIT s: a frozen server
            hovers += hover is not None and "RefScore" in hover.contents.value
            await asyncio.sleep(rnd.choice((0.001, 0.01, 0.2)))
        assert hovers > 0  # the summary hover, from the last result
        for doc in docs:
            await s.wait_summary(doc, version=s.versions[doc])
        assert s.client.messages == []
        assert not [m for m in s.client.log_messages if "Traceback" in m.message]
