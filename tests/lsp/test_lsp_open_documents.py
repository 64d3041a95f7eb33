"""Many open documents (issue 45, item 8): every one gets its diagnostics, and the indexes that
keep the server linear in them (``lsp/open_files.py``) follow documents opened under two names,
edited and closed. Real server, pytest-lsp client; the tests wait for events, never for a clock.
The cost per size is measured by ``benchmarks/bench_lsp_documents.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from refscore.lsp.open_files import OpenFiles, Results
from refscore.lsp.references import ReferenceChoice
from refscore.scoring.codebleu import score_codebleu
from tests.lsp import samples
from tests.lsp.harness import session, uri

COUNT = 150


def _candidate(i: int) -> str:
    return f"def total_{i}(values):\n    result = 0\n    for value in values:\n" \
           f"        result = result + value * {i}\n    return result\n"


@pytest.mark.asyncio
async def test_every_one_of_many_open_documents_gets_its_own_summary(tmp_path: Path) -> None:
    paths = []
    for i in range(COUNT):
        (tmp_path / f"c{i}.ref.py").write_text(_candidate(i).replace("result", "acc"), encoding="utf-8")
        path = tmp_path / f"c{i}.py"
        path.write_text(_candidate(i) if i % 2 else _candidate(i) + "print(total_0([1]))\n", encoding="utf-8")
        paths.append(path)
    async with session(tmp_path, settings={"metrics": ["codebleu"]}) as s:
        docs = [s.open(path) for path in paths]
        waiting = set(docs)

        def all_arrived() -> bool:
            waiting.difference_update([doc for doc in waiting if s.summary(doc) is not None])
            return not waiting

        await s.wait_for(all_arrived, timeout=300, what=f"a summary on each of {COUNT} documents")
        for i, (path, doc) in enumerate(zip(paths, docs)):
            summary = s.summary(doc)
            assert summary is not None and summary.data["version"] == 1
            assert summary.data["references"] == [uri(tmp_path / f"c{i}.ref.py")]
            expected = score_codebleu([(tmp_path / f"c{i}.ref.py").read_text(encoding="utf-8")],
                                      path.read_text(encoding="utf-8"), "python")
            assert summary.data["codebleu"]["score"] == pytest.approx(expected.score, abs=1e-9)


@pytest.mark.asyncio
async def test_a_reference_open_under_a_link_counts_until_closed(tmp_path: Path) -> None:
    """The reference opened by a symbolic link's name and edited: the candidate is rescored with
    the editor's text (the link resolved once, at open); closed: with the file on disk again."""
    ref = tmp_path / "task.ref.py"
    ref.write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "task.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    os.symlink(ref, tmp_path / "alias.py")
    async with session(tmp_path, settings={"metrics": ["codebleu"]}) as s:
        doc = s.open(cand)
        before = (await s.wait_summary(doc)).data["codebleu"]["score"]
        alias = s.open(tmp_path / "alias.py")
        s.replace_all(alias, samples.CANDIDATE)  # unsaved: the editor's text counts
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] > 0.99, what="editor's text")
        s.client.text_document_did_close(_closed(alias))
        await s.wait_for(lambda: (d := s.summary(doc)) and d.data["codebleu"]["score"] == pytest.approx(before),
                         what="the text on disk again")


def _closed(doc: str):
    from lsprotocol import types

    return types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=doc))


class _Doc:
    def __init__(self, source: str) -> None:
        self.source = source


def test_open_files_keeps_a_path_while_any_of_its_uris_is_open(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    os.symlink(tmp_path / "a.py", tmp_path / "b.py")
    first, second = uri(tmp_path / "a.py"), uri(tmp_path / "b.py")
    documents = {first: _Doc("first"), second: _Doc("second")}
    files = OpenFiles()
    for name in (first, second, "untitled:Untitled-1"):
        files.opened(name)
    texts = files.texts(documents.get)
    real = str((tmp_path / "a.py").resolve())
    assert texts[real] == "first" and real in texts and len(texts) == 1
    files.closed(first)
    del documents[first]
    assert texts[real] == "second"  # the view reads the live index
    files.closed(second)
    assert real not in texts
    with pytest.raises(KeyError):
        texts[real]


def test_results_index_follows_each_stored_result() -> None:
    class _Result:
        def __init__(self, *paths: str) -> None:
            self.choice = ReferenceChoice(tuple(Path(p) for p in paths), "convention")

    results = Results()
    results["a"] = _Result("/r/one.py", "/r/two.py")
    results["b"] = _Result("/r/one.py")
    assert results.dependents("/r/one.py") == ["a", "b"] and results.dependents("/r/two.py") == ["a"]
    results["a"] = _Result("/r/three.py")  # a newer result names other references
    assert results.dependents("/r/one.py") == ["b"] and results.dependents("/r/two.py") == []
    assert results.pop("b") is not None and results.dependents("/r/one.py") == []
    del results["a"]
    assert results.dependents("/r/three.py") == [] and not results
    assert results.pop("gone", None) is None
