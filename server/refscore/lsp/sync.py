"""Document lifecycle and configuration: what triggers scoring.

* open/change of a document schedules it (debounced); a change of a document that is some
  open candidate's reference reschedules those candidates too; a save rescores nothing it already
  scored (``current.same_inputs``), but reschedules the open documents that have no reference yet (the file
  written may be theirs);
* ``workspace/didChangeWatchedFiles`` (registered dynamically when the client allows): a file
  created or deleted rescores every open document (it may be, or have been, someone's
  reference), a file changed rescores the open candidates it is a reference of;
* ``workspace/didChangeWorkspaceFolders`` rescores every open document (folders root the
  conventions and the settings' globs);
* a single change event inserting at least ``insertion.minChars`` non-blank characters is marked
  as a large insertion (scored on its own);
* settings come from ``workspace/configuration`` (section ``refscore``), else from
  ``initializationOptions.settings``, and are re-read on ``workspace/didChangeConfiguration``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from ..settings_schema import shown
from .settings import parse_settings
from .status import report_status
from .uris import fs_path, real_path

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)


def _path_of(uri: str) -> str | None:
    """The real path of a ``file:`` URI (None for another scheme)."""
    path = fs_path(uri)
    return str(real_path(path)) if path is not None else None


def _rescore_dependents(server: "RefScoreServer", uri: str, path: str | None = None) -> None:
    """Schedule the open candidates whose references include ``uri`` (its real ``path`` when known)."""
    path = path or _path_of(uri)
    if path is None:
        return
    for dependent in server.loop.dependents(path):
        if dependent != uri:
            server.loop.schedule(dependent)


def _note_insertion(server: "RefScoreServer", params: types.DidChangeTextDocumentParams) -> None:
    changes = params.content_changes
    if len(changes) != 1 or not isinstance(changes[0], types.TextDocumentContentChangePartial):
        return
    change = changes[0]
    if len("".join(change.text.split())) < max(server.settings.insertion_min_chars, 1):
        return
    document = server.document(params.text_document.uri)
    if document is None:
        return
    from .positions import Positions

    start = Positions(document.source, server.workspace.position_codec).offset(change.range.start)
    server.loop.insertions[document.uri] = (document.version, start, start + len(change.text))


async def refresh_settings(server: "RefScoreServer") -> None:
    """Pull the ``refscore`` section from the client and rescore everything with it."""
    if not server._supports("workspace", "configuration"):
        return
    try:
        items = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="refscore")]))
    except Exception as error:  # noqa: BLE001 - keep the settings we have
        log.warning("workspace/configuration failed: %s", error)
        return
    apply_settings(server, items[0] if items else None)


def apply_settings(server: "RefScoreServer", section: Any) -> None:
    if section is None:  # the client has no refscore section: the initializationOptions ones stay
        section = server.initial_settings
    settings, problems = parse_settings(section)
    for problem in problems:
        server.notice(problem)
    hints_were_on, server.settings = server.settings.inlay_hints, settings
    if hints_were_on and not settings.inlay_hints and server._supports("workspace", "inlay_hint", "refresh_support"):
        server.workspace_inlay_hint_refresh(None)  # the client drops the hints it shows (on: after each result)
    report_status(server)
    for uri in server.open_uris():
        server.loop.schedule(uri, immediate=True)


def register(server: "RefScoreServer") -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: "RefScoreServer", params: types.InitializeParams) -> None:
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        opted = options.get("tokenScores")
        ls.token_scores = opted is True
        ls.behaviour.trusted = options.get("workspaceTrusted") is not False  # VS Code's Workspace Trust
        commands = options.get("clientCommands")  # the commands the client runs itself (lsp/code_actions.py)
        ls.behaviour.client_commands = {c for c in commands if isinstance(c, str)} if isinstance(commands, list) else set()
        if opted is not None and not isinstance(opted, bool):  # "false" must not mean true
            ls.notice(f"initializationOptions.tokenScores: must be true or false (not {shown(opted)}); "
                      "the refscore/tokenScores notification stays off")
        if options.get("settings") is not None:  # not an object: one message, the defaults
            if isinstance(options["settings"], dict):
                ls.initial_settings = options["settings"]
            settings, problems = parse_settings(options["settings"])
            ls.settings = settings
            for problem in problems:  # showMessage is allowed before the initialize reply
                ls.notice(problem)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: "RefScoreServer", params: types.InitializedParams) -> None:
        if ls._supports("workspace", "did_change_watched_files", "dynamic_registration"):
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="refscore-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options={"watchers": [{"globPattern": "**/*"}]})]))
            except Exception as error:  # noqa: BLE001
                log.warning("could not register a file watcher: %s", error)
        try:
            await refresh_settings(ls)
        finally:
            ls.mark_settings_ready()
            report_status(ls)  # what it can score, with the client's settings (none: the defaults)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: "RefScoreServer", params: types.DidChangeConfigurationParams) -> None:
        if ls._supports("workspace", "configuration"):
            await refresh_settings(ls)
        elif isinstance(params.settings, dict):
            apply_settings(ls, params.settings.get("refscore", params.settings))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: "RefScoreServer", params: types.DidOpenTextDocumentParams) -> None:
        ls.loop.schedule(params.text_document.uri, immediate=True)
        _rescore_dependents(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: "RefScoreServer", params: types.DidChangeTextDocumentParams) -> None:
        _note_insertion(ls, params)
        ls.loop.schedule(params.text_document.uri)
        _rescore_dependents(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: "RefScoreServer", params: types.DidSaveTextDocumentParams) -> None:
        # the text saved is the text scored: nothing to redo for it (lsp/current.py: same_inputs)
        ls.behaviour.saved(params.text_document.uri)  # every function runs again (lsp/behaviour.py)
        _rescore_dependents(ls, params.text_document.uri)
        for uri in ls.open_uris():  # the file written may be the reference they lacked (no watcher needed)
            if uri not in ls.loop.results and uri != params.text_document.uri:
                ls.loop.schedule(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: "RefScoreServer", params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.loop.forget(uri)
        ls.behaviour.forget(uri)
        ls.forget_heat(uri)
        ls.pulled.forget(uri)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        _rescore_dependents(ls, uri)  # the reference's text now comes from disk again

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(ls: "RefScoreServer", params: types.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated its folders: conventions and settings globs start from them
        for uri in ls.open_uris():
            ls.loop.schedule(uri, immediate=True)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: "RefScoreServer", params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.type != types.FileChangeType.Changed for change in params.changes):
            ls.loop.reader.clear()  # not a path resolved per event: an npm install sends thousands
            for uri in ls.open_uris():  # created or deleted: which file is whose reference may change
                ls.loop.schedule(uri)
            return
        for change in params.changes:  # changed: only the candidates it is a reference of
            path = _path_of(change.uri)
            if path is not None:
                ls.loop.reader.forget(Path(path))  # read again even when its stat looks the same
                _rescore_dependents(ls, change.uri, path)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: "RefScoreServer", params: Any) -> None:
        ls.loop.shutdown()
        ls.behaviour.shutdown()
