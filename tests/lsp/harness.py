"""Start the real ``refscore serve`` process and drive it with pytest-lsp's LanguageClient."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from tests.support.timing import hang_guard

REPO = Path(__file__).resolve().parents[2]
WAIT = hang_guard()  # seconds any single expectation may take before it is a hang (tests/support/timing.py)


def server_command(daemon: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "refscore", "serve"]
    return cmd if daemon else [*cmd, "--no-daemon"]


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": path, **(extra or {})}


def uri(path: Path) -> str:
    """The document URI a real client sends: percent-encoded (VS Code and Neovim write a space as
    %20), absolute but with symbolic links as the user named them (editors do not resolve them)."""
    return Path(os.path.abspath(path)).as_uri()


class Session:
    """A started client with helpers to open, edit and wait."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.versions: dict[str, int] = {}
        self.token_scores: list[dict[str, Any]] = []
        self.lens_refreshes = 0
        self.hint_refreshes = 0
        self.published: list[tuple[str, int | None, list[types.Diagnostic]]] = []
        #: (document, version) -> when its first diagnostics arrived (``time.perf_counter``)
        self.arrivals: dict[tuple[str, int | None], float] = {}
        self.published_at: list[float] = []  # when each entry of ``published`` arrived
        self.statuses: list[dict[str, Any]] = []  # refscore/status notifications
        self.document_statuses: list[dict[str, Any]] = []  # refscore/documentStatus notifications
        self.initialize_result: types.InitializeResult | None = None

    def open(self, path: Path, text: str | None = None, language_id: str = "python") -> str:
        doc = uri(path)
        self.versions[doc] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=doc, language_id=language_id, version=1,
            text=path.read_text(encoding="utf-8") if text is None else text)))
        return doc

    def replace_all(self, doc: str, text: str) -> int:
        """Replace the whole document (one full-text change); returns the new version."""
        self.versions[doc] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=self.versions[doc]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[doc]

    def insert(self, doc: str, line: int, character: int, text: str) -> int:
        """Insert ``text`` at a position (one incremental change); returns the new version."""
        self.versions[doc] += 1
        at = types.Position(line=line, character=character)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=self.versions[doc]),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(at, at), text=text)]))
        return self.versions[doc]

    def replace_range(self, doc: str, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """Replace the (line, character) range with ``text`` (one incremental change); the new version."""
        self.versions[doc] += 1
        rng = types.Range(types.Position(*start), types.Position(*end))
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=self.versions[doc]),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)]))
        return self.versions[doc]

    def diagnostics(self, doc: str) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(doc, []))

    def summary(self, doc: str) -> types.Diagnostic | None:
        return next((d for d in self.diagnostics(doc) if d.code == "refscore.summary"), None)

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = WAIT, what: str = "") -> Any:
        """Poll ``predicate`` until it returns something truthy."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what or predicate}")
            await asyncio.sleep(0.02)

    async def wait_summary(self, doc: str, version: int | None = None, contains: str = "",
                           timeout: float = WAIT) -> types.Diagnostic:
        """Wait for the summary diagnostic (of ``version`` when given) whose message has
        ``contains``, its differences ranked (the summary is published first, with the last
        version's differences the edit did not touch: ``differencesState`` pending)."""
        def ready() -> types.Diagnostic | None:
            found = self.summary(doc)
            if found is None or contains not in found.message or found.data.get("differencesState") == "pending":
                return None
            if version is not None and found.data.get("version") != version:
                return None
            return found
        return await self.wait_for(ready, timeout, what=f"summary of {doc} v{version} containing {contains!r}")

    async def wait_scored(self, doc: str, version: int | None = None, timeout: float = 180.0) -> types.Diagnostic:
        """The summary (of ``version`` when given) once CodeBERTScore is in it (a first model load
        on a cold 2-core machine included)."""
        return await self.wait_for(lambda: (d := self.summary(doc)) and d.data["codebertscoreState"] == "done"
                                   and version in (None, d.data.get("version")) and d,
                                   timeout=timeout, what=f"CodeBERTScore of {doc} v{version}")

    async def command(self, name: str, *args: Any) -> Any:
        return await asyncio.wait_for(self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(args))), WAIT)

    async def hover(self, doc: str, line: int, character: int) -> types.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc),
            position=types.Position(line=line, character=character))), WAIT)

    async def lenses(self, doc: str) -> list[types.CodeLens]:
        return list(await asyncio.wait_for(self.client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=doc))), WAIT) or [])


@asynccontextmanager
async def session(root: Path, settings: dict[str, Any] | None = None,
                  init_options: dict[str, Any] | None = None, daemon: bool = False,
                  capabilities: str | types.ClientCapabilities = "visual-studio-code",
                  env: dict[str, str] | None = None, command: list[str] | None = None) -> AsyncIterator[Session]:
    """A running server for the workspace ``root``, initialised, shut down afterwards (started with
    ``command`` when given, else ``refscore serve``)."""
    client = make_test_lsp_client()
    helper = Session(client)

    @client.feature("refscore/tokenScores")
    def _token_scores(params: Any) -> None:
        helper.token_scores.append(params if isinstance(params, dict) else _plain(params))

    @client.feature("refscore/status")
    def _status(params: Any) -> None:
        helper.statuses.append(params if isinstance(params, dict) else _plain(params))

    @client.feature("refscore/documentStatus")
    def _document_status(params: Any) -> None:
        helper.document_statuses.append(params if isinstance(params, dict) else _plain(params))

    client.diagnostics = _Recorder(helper)
    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: Any) -> None:
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: Any) -> None:
        helper.lens_refreshes += 1

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def _hint_refresh(params: Any) -> None:
        helper.hint_refreshes += 1

    client.set_configuration({"metrics": ["codebleu"], **(settings or {})}, section="refscore")
    await client.start_io(*(command or server_command(daemon)), env=server_env(env))
    try:
        helper.initialize_result = await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities(capabilities) if isinstance(capabilities, str) else capabilities,
            root_uri=uri(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri(root), name=root.name)],
            initialization_options=init_options)), WAIT)
        yield helper
    finally:
        await _close(client)


async def _close(client: LanguageClient) -> None:
    """Shut the server down politely, else terminate it; never leave a process behind."""
    try:
        await asyncio.wait_for(client.shutdown_session(), 10)
    except Exception:  # noqa: BLE001 - a failed test may have left it in any state
        pass
    process = getattr(client, "_server", None)
    if process is not None and process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
    await asyncio.wait_for(client.stop(), hang_guard(60))


class _Recorder(dict):
    """pytest-lsp keeps only the latest diagnostics per document; this also keeps their history
    (its publishDiagnostics handler stores into ``client.diagnostics``)."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def __setitem__(self, key: str, value: list[types.Diagnostic]) -> None:
        now = time.perf_counter()
        version = next((d.data.get("version") for d in value if isinstance(d.data, dict)), None)
        self.session.arrivals.setdefault((key, version), now)
        self.session.published.append((key, version, list(value)))
        self.session.published_at.append(now)
        super().__setitem__(key, value)


def _plain(value: Any) -> Any:
    """pygls hands unknown notifications over as namespace objects; turn them back into dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: _plain(v) for k, v in vars(value).items()}
    return value
