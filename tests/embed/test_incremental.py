"""Incremental CodeBERTScore for the editor: live updates encode top-level definitions one by one
(embed/incremental.py), say so in their signature, re-encode only the definition an edit touched,
travel through the daemon as ``ScoreRequest.live``, and give way to the exact score once the
document is saved (real language server, real daemon)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refscore.scoring.report import ScoreRequest, request_to_dict
from refscore.scoring.requests import request_from_dict


def function(i: int) -> str:
    """One small top-level function (a definition of about 30 tokens)."""
    return f"def scale_{i}(values, factor={i}):\n    out = [v * factor for v in values]\n    return sum(out) + {i}\n\n"


CANDIDATE = "".join(function(i) for i in range(8))
REFERENCE = CANDIDATE.replace("out", "scaled").replace("v * factor", "factor * v")


def test_live_travels_in_the_request_and_defaults_to_exact():
    request = ScoreRequest("x = 1", ("x = 2",), "python")
    assert request.live is False
    live = request_from_dict(request_to_dict(ScoreRequest("x = 1", ("x = 2",), "python", live=True)))
    assert live.live is True and request_from_dict({**request_to_dict(request), "live": None}).live is False


def test_the_daemon_rejects_a_live_flag_that_is_not_a_boolean():
    from refscore.service.requests import RpcError, parse_request

    wire = json.loads(json.dumps(request_to_dict(ScoreRequest("x = 1", ("x = 2",), "python"))))
    data = {**wire, "live": "yes"}
    with pytest.raises(RpcError, match="request.live must be true or false"):
        parse_request(data)
    data["live"] = True
    assert parse_request(data).live is True


def test_definition_cuts_follow_top_level_definitions():
    from refscore.embed.incremental import definition_cuts

    cuts = definition_cuts(CANDIDATE, "python")
    assert len(cuts) == 8 and cuts[0] == 0
    assert all(CANDIDATE[c:].startswith("def scale_") for c in cuts[1:])
    java = "class A {\n" + "".join(f"  int f{i}(int x) {{ return x * {i} + 1000; }}\n" for i in range(4)) + "}\n"
    assert len(definition_cuts(java, "java")) == 4  # methods inside the class; the first joins the header
    assert definition_cuts(CANDIDATE, "no-such-language") == [0] and definition_cuts(CANDIDATE, None) == [0]


torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def scorer():
    from refscore.embed.models import scorer_for

    return scorer_for("python")


def _score(scorer, candidate, reference, live, context=None, language="python"):
    from refscore.embed.bertscorer import ScorePair

    return scorer.score_batch([ScorePair(candidate, reference, language, context, live)])[0]


def test_live_scores_encode_definitions_one_by_one_and_say_so(scorer):
    exact = _score(scorer, CANDIDATE, REFERENCE, live=False)
    live = _score(scorer, CANDIDATE, REFERENCE, live=True)
    assert "split:" not in exact.signature and "|split:defs|" in live.signature
    # the same tokens, spans and texts are scored; only their vectors come from smaller inputs
    assert [(t.text, t.start, t.end) for t in live.candidate_tokens] == \
        [(t.text, t.start, t.end) for t in exact.candidate_tokens]
    assert abs(live.f1 - exact.f1) < 0.05 and live.f1 != exact.f1
    # each token's vector is the one its definition gets when encoded alone
    from refscore.embed.incremental import embed_in_parts
    from refscore.metrics.codebertscore import model_input

    enc = scorer.encoder
    whole = embed_in_parts(enc, model_input(CANDIDATE), "python")
    first = CANDIDATE[:CANDIDATE.index("def scale_1")]
    alone = enc.embed([first.strip()])[0]
    assert whole.parts == 8
    assert torch.equal(whole.embeddings[: len(alone.ids) - 1], alone.embeddings[:-1])


def test_a_live_pair_never_changes_an_exact_pair_of_the_same_batch(scorer):
    """The daemon coalesces clients' requests: an editor's live request and the CLI's exact one
    for the same texts may share a batch."""
    from refscore.embed.bertscorer import ScorePair

    alone = _score(scorer, CANDIDATE, REFERENCE, live=False)
    live, exact = scorer.score_batch([ScorePair(CANDIDATE, REFERENCE, "python", None, True),
                                      ScorePair(CANDIDATE, REFERENCE, "python", None, False)])
    assert exact == alone and "|split:defs|" in live.signature


def test_one_definition_or_an_unknown_language_scores_exactly(scorer):
    one, ref = function(0), function(1)
    assert _score(scorer, one, ref, live=True) == _score(scorer, one, ref, live=False)
    unknown = _score(scorer, CANDIDATE, REFERENCE, live=True, language=None)
    assert "split" not in unknown.signature


def test_live_with_context(scorer):
    live = _score(scorer, CANDIDATE, REFERENCE, live=True, context="running maximum of a list")
    exact = _score(scorer, CANDIDATE, REFERENCE, live=False, context="running maximum of a list")
    assert "|ctx:yes|split:defs|" in live.signature and abs(live.f1 - exact.f1) < 0.05


def test_an_edit_reencodes_only_the_definition_it_touched(scorer):
    enc = scorer.encoder
    _score(scorer, CANDIDATE, REFERENCE, live=True)
    edited = CANDIDATE.replace("def scale_5(values, factor=5):", "def scale_5(values, factor=5, key=None):")
    rows = []
    original = enc.run_model

    def counting(ids, mask):
        rows.append(tuple(ids.shape))
        return original(ids, mask)

    enc.run_model = counting
    try:
        result = _score(scorer, edited, REFERENCE, live=True)
    finally:
        del enc.run_model
    assert len(rows) == 1 and rows[0][0] == 1 and rows[0][1] < 60, rows  # one definition, ~30 tokens
    assert "|split:defs|" in result.signature


# -- the editor --------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("live", [True, False])
async def test_the_editor_shows_one_kind_of_codebertscore_saved_or_not(tmp_path: Path, live: bool):
    """Same text, same number, whatever the path (issue 43): the editor encodes per definition
    (``split:defs``) whether the file is saved or not, so a save never changes what is shown;
    ``$REFSCORE_LIVE_CODEBERTSCORE=0`` makes it the exact encode everywhere, saved or not."""
    from lsprotocol import types

    from tests.lsp.daemon import bert_unavailable, daemon_env, stop_daemon
    from tests.lsp.harness import session

    reason = bert_unavailable()
    if reason is not None:
        pytest.skip(reason)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "solution.ref.py").write_text(REFERENCE, encoding="utf-8")
    path = ws / "solution.py"
    path.write_text(CANDIDATE, encoding="utf-8")
    env = {**daemon_env(tmp_path), "REFSCORE_LIVE_CODEBERTSCORE": "1" if live else "0"}
    settings = {"metrics": ["codebleu", "codebertscore"], "debounceMs": 0}

    def bert_of(s, doc, version):
        found = s.summary(doc)
        if found is None or found.data.get("version") != version or found.data.get("codebertscoreState") != "done":
            return None
        return found.data["codebertscore"]

    def split(bert) -> bool:
        return "|split:defs|" in bert["signature"]

    try:
        async with session(ws, settings=settings, daemon=True, env=env) as s:
            doc = s.open(path)
            opened = await s.wait_for(lambda: bert_of(s, doc, 1), timeout=180, what="the first CodeBERTScore")
            assert split(opened) is live  # as saved: the same kind as while typing
            version = s.insert(doc, 2, 4, "x")
            edited = await s.wait_for(lambda: bert_of(s, doc, version), timeout=60, what="the edit's CodeBERTScore")
            assert split(edited) is live
            path.write_text(CANDIDATE.replace("    return", "    xreturn", 1), encoding="utf-8")
            s.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=doc)))
            version = s.insert(doc, 2, 4, "y")  # an event after the save: the save's publish would be before it
            after = await s.wait_for(lambda: bert_of(s, doc, version), timeout=60, what="the CodeBERTScore after saving")
            assert split(after) is live
    finally:
        stop_daemon(env)


def test_the_editor_asks_the_daemon_only_for_what_changed():
    """Unchanged functions (and a version whose text did not change) are answered from the
    loop's memory; a stand-in for the daemon records what it is asked (unit test)."""
    from types import SimpleNamespace

    from refscore.lsp.loop import ScoringLoop
    from refscore.scoring.report import ScoreReport

    asked: list[list[ScoreRequest]] = []

    def codebertscore(requests, document):
        asked.append(list(requests))
        return [ScoreReport("python", errors=["failed"] if r.candidate == "bad" else []) for r in requests]

    loop = ScoringLoop(SimpleNamespace(scorers=SimpleNamespace(codebertscore=codebertscore)))
    try:
        doc, f, g, bad = (ScoreRequest(text, ("ref",), "python") for text in ("doc", "f", "g", "bad"))
        assert len(loop._bert_reports([doc, f, g, bad], "file:///a.py")) == 4
        edited = ScoreRequest("doc2", ("ref",), "python")
        answers = loop._bert_reports([edited, f, g, bad], "file:///a.py")
        assert asked == [[doc, f, g, bad], [edited, bad]]  # a failed answer is asked again
        assert len(answers) == 4 and all(isinstance(a, ScoreReport) for a in answers)
    finally:
        loop.shutdown()


def test_an_edited_documents_reference_is_prepared_once_and_scores_as_before(scorer, monkeypatch):
    """``embed.prepared.LiveMemo``: the reference of an edited document, the same text edit after
    edit, is prepared (tokens, definitions, rows) once; the scores equal a fresh scorer's."""
    from refscore.embed import incremental, prepared
    from refscore.embed.bertscorer import BertScorer, prepare_texts

    edits = [CANDIDATE.replace("def scale_3(", f"def scale_3{'x' * k}(") for k in range(1, 4)]
    expected = [_score(BertScorer(scorer.encoder), edited, REFERENCE, live=True) for edited in edits]
    prepared_texts: list[str] = []
    real = incremental.embed_in_parts

    def counting(encoder, source, language):
        prepared_texts.append(source.text.strip())
        return real(encoder, source, language)

    monkeypatch.setattr(incremental, "embed_in_parts", counting)
    editor = BertScorer(scorer.encoder)
    assert [_score(editor, edited, REFERENCE, live=True) for edited in edits] == expected
    assert prepared_texts.count(REFERENCE.strip()) == 1  # the first edit's; the others took it from the memo
    assert [t for t in prepared_texts if t != REFERENCE.strip()] == [e.strip() for e in edits]
    memo = prepared.LiveMemo(entries=2)
    keys = {(text, None): "python" for text in (edits[0], edits[1], REFERENCE)}
    assert len(memo.prepare(keys, lambda missing: prepare_texts(scorer.encoder, list(missing), parts=missing))) == 3
    assert len(memo._kept) == 2  # bounded
