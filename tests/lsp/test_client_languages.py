"""The VS Code client's language list is the server's registry: ``package.json``'s
``activationEvents`` and ``src/languages.generated.ts`` (the document selector) are what
``client-vscode/scripts/languages.py`` generates from ``refscore.languages``."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from refscore import languages

from tests.support.client_scripts import CLIENT, client_script

FIX = "run `python client-vscode/scripts/languages.py` (client-vscode/scripts/build.sh does)"


def _generator():
    return client_script("languages")


def test_package_json_activates_for_every_registered_lsp_id() -> None:
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    assert manifest["activationEvents"] == [f"onLanguage:{i}" for i in languages.lsp_ids()], FIX
    assert {"onLanguage:javascriptreact", "onLanguage:typescriptreact"} <= set(manifest["activationEvents"])


def test_generated_language_list_matches_the_registry() -> None:
    text = (CLIENT / "src" / "languages.generated.ts").read_text(encoding="utf-8")
    body = text.split("export const LANGUAGES: readonly string[] = [", 1)[1].split("];", 1)[0]
    assert re.findall(r'"([^"]+)"', body) == languages.lsp_ids(), FIX
    assert _generator().stale() == [], FIX


def test_client_uses_the_generated_list_only() -> None:
    client = (CLIENT / "src" / "client.ts").read_text(encoding="utf-8")
    selector = (CLIENT / "src" / "selector.ts").read_text(encoding="utf-8")
    # the client's document selector comes from selector.ts, built on the generated list
    assert 'from "./selector"' in client and "documentSelector()" in client
    assert 'from "./languages.generated"' in selector
    for path in (CLIENT / "src").glob("*.ts"):
        if path.name != "languages.generated.ts":
            assert '"javascript"' not in path.read_text(encoding="utf-8"), f"{path.name} lists languages"


def test_patching_the_manifest_replaces_only_the_activation_events() -> None:
    gen = _generator()
    text = (CLIENT / "package.json").read_text(encoding="utf-8")
    stale = re.sub(r'"onLanguage:typescriptreact",\s*', "", text)
    assert stale != text
    assert gen.patch_manifest(stale, languages.lsp_ids()) == text
    before, after = json.loads(stale), json.loads(gen.patch_manifest(stale, ["python"]))
    assert after.pop("activationEvents") == ["onLanguage:python"]
    before.pop("activationEvents")
    assert after == before


def test_check_mode_passes_on_the_committed_files() -> None:
    run = subprocess.run([sys.executable, str(CLIENT / "scripts" / "languages.py"), "--check"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_neovim_recipes_list_every_language_the_server_scores() -> None:
    """Neovim sends a buffer's filetype as its languageId (``typescriptreact`` for .tsx,
    ``javascriptreact`` for .jsx, ``cs`` for C#): a recipe without one never attaches to it."""
    import re
    from pathlib import Path

    from refscore import languages

    root = Path(__file__).resolve().parents[2]
    wanted = {"cs" if lsp_id == "csharp" else lsp_id for lsp_id in languages.lsp_ids()}
    for doc in ("README.md", "docs/install.md", "docs/editor.md"):
        lists = re.findall(r"filetypes = \{([^}]*)\}", (root / doc).read_text(encoding="utf-8"))
        assert lists, doc
        for listed in lists:
            filetypes = set(re.findall(r'"([^"]+)"', listed))
            assert all(languages.find(f) for f in filetypes), (doc, filetypes)
            assert wanted <= filetypes, (doc, sorted(wanted - filetypes))
