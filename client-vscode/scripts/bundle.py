#!/usr/bin/env python3
"""Fills ``client-vscode/bundled/`` for one platform: everything the language server and CodeBLEU
need, so the extension runs with any Python 3.10+ and no set-up (docs/vscode.md).

    python scripts/bundle.py --target linux-x64|darwin-arm64|win32-x64

* ``bundled/wheels/refscore-*.whl``: RefScore built from this repository (the managed CodeBERTScore
  environment installs it with the ``bert`` extra).
* ``bundled/libs/``: that wheel with the ``lsp`` extra and every dependency (pygls, lsprotocol,
  cattrs, attrs, tree-sitter and the grammar wheels, platformdirs), installed with
  ``pip install --target --platform ... --only-binary=:all:``. Wheels built for one CPython
  (tree-sitter's core) are added for every supported CPython (3.10 to 3.14): their extension
  modules have per-version names and sit side by side.
* ``bundled/bundle.json``: target, versions and the Pythons the binaries cover.

Needs pip and the package index (or a pip configuration that points at a wheel folder).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
REPO = HERE.parent
BUNDLED = HERE / "bundled"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
#: pip tags per VS Code target; pip widens a manylinux or macOS tag to the older releases it covers
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_17_x86_64", "manylinux2014_x86_64"),
    "linux-arm64": ("manylinux_2_17_aarch64", "manylinux2014_aarch64"),
    "darwin-arm64": ("macosx_11_0_arm64",),
    "darwin-x64": ("macosx_10_13_x86_64",),
    "win32-x64": ("win_amd64",),
}
#: Dependencies the language server never imports (``grade --similarity``'s MinHash, imported only
#: there) and what only they bring: numpy and scipy would be most of the bundle, once per CPython,
#: and would shadow the CodeBERTScore environment's own numpy and scipy (the bundled libraries come
#: first on PYTHONPATH).
UNBUNDLED = ("datasketch", "numpy", "scipy")
#: pip evaluates environment markers for the Python running it, not for --python-version: the
#: backports the bundle's packages need on the oldest supported Python are named here.
BACKPORTS = ("exceptiongroup>=1.1.1", "typing_extensions>=4.12")


def pip(python: str, *args: str) -> None:
    command = [python, "-m", "pip", *args, "--disable-pip-version-check", "--no-input", "--progress-bar", "off"]
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def platform_args(target: str, python_version: str) -> list[str]:
    args = ["--only-binary=:all:", "--implementation", "cp", "--python-version", python_version]
    for tag in PLATFORMS[target]:
        args += ["--platform", tag]
    return args


def build_wheel(python: str, out: Path) -> Path:
    """RefScore's wheel from the repository (pip's build isolation; nothing left in the tree)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(REPO / "server" / "refscore", src / "server" / "refscore",
                        ignore=shutil.ignore_patterns("__pycache__", ".*", "*.pyc"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(REPO / name, src / name)
        pip(python, "wheel", "--no-deps", "--wheel-dir", str(out), str(src))
    wheels = sorted(out.glob("refscore-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one refscore wheel in {out}, found {wheels}")
    return wheels[0]


def version_specific(libs: Path) -> dict[str, str]:
    """Installed distributions whose wheel is built for one CPython (name -> version)."""
    found: dict[str, str] = {}
    for info in libs.glob("*.dist-info"):
        wheel = (info / "WHEEL").read_text() if (info / "WHEEL").exists() else ""
        tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
        if tags and all(t.split("-")[1].startswith("cp3") and "abi3" not in t for t in tags):
            meta = (info / "METADATA").read_text()
            fields = dict(line.split(": ", 1) for line in meta.splitlines()[:20] if ": " in line)
            found[fields["Name"]] = fields["Version"]
    return found


def _dist_name(info: Path) -> str:
    return info.name.removesuffix(".dist-info").split("-", 1)[0].lower().replace("_", "-")


def drop_unbundled(libs: Path) -> None:
    """Removes UNBUNDLED (every file their RECORD names); fails when a package left needs one."""
    for info in sorted(libs.glob("*.dist-info")):
        if _dist_name(info) not in UNBUNDLED:
            continue
        record = info / "RECORD"
        lines = record.read_text().splitlines() if record.exists() else []
        tops = {line.split(",", 1)[0].split("/", 1)[0] for line in lines if line}
        tops |= {_dist_name(info).replace("-", "_"), f"{_dist_name(info).replace('-', '_')}.libs"}
        for top in sorted(tops | {info.name}):
            target = libs / top
            if top in ("", ".", "..") or target.resolve().parent != libs.resolve():
                continue  # a script installed outside (../../bin/f2py): not in the bundle anyway
            shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
        print(f"not bundled: {info.name.removesuffix('.dist-info')}", flush=True)
    for info in libs.glob("*.dist-info"):
        for line in (info / "METADATA").read_text(errors="replace").splitlines():
            if line.startswith("Requires-Dist:") and "extra ==" not in line:
                need = line.split(":", 1)[1].strip().split(";")[0]
                name = need.split("[")[0].split("(")[0].split("=")[0].split("<")[0].split(">")[0].split("!")[0]
                if name.strip().lower().replace("_", "-") in UNBUNDLED and _dist_name(info) != "refscore":
                    raise SystemExit(f"{info.name} needs {need}, which the bundle leaves out (UNBUNDLED)")


def add_other_pythons(python: str, target: str, libs: Path, base: str) -> list[str]:
    """Overlays the per-CPython extension modules of the other supported Pythons; returns the
    Pythons the bundle covers."""
    specific = version_specific(libs)
    covered = [base]
    for version in PYTHONS:
        if version == base or not specific:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                pip(python, "download", "--no-deps", "--dest", tmp, *platform_args(target, version),
                    *[f"{name}=={v}" for name, v in specific.items()])
            except subprocess.CalledProcessError:
                print(f"note: no wheels for CPython {version} on {target}; that Python is not covered", flush=True)
                continue
            for wheel in Path(tmp).glob("*.whl"):
                with zipfile.ZipFile(wheel) as archive:
                    for name in archive.namelist():
                        if name.endswith((".so", ".pyd")) and ".dist-info/" not in name:
                            archive.extract(name, libs)
            covered.append(version)
    return covered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, choices=sorted(PLATFORMS))
    parser.add_argument("--python", default=sys.executable, help="the Python whose pip does the work")
    parser.add_argument("--out", type=Path, default=BUNDLED, help="the folder to fill (default: client-vscode/bundled)")
    args = parser.parse_args()
    base = PYTHONS[0]
    bundled = args.out.resolve()
    libs, wheels = bundled / "libs", bundled / "wheels"
    shutil.rmtree(libs, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)
    wheel = build_wheel(args.python, wheels)
    pip(args.python, "install", "--target", str(libs), "--no-compile", "--upgrade", "--no-warn-conflicts",
        *platform_args(args.target, base),
        f"{wheel}[lsp]", *BACKPORTS)
    drop_unbundled(libs)
    covered = add_other_pythons(args.python, args.target, libs, base)
    shutil.rmtree(libs / "bin", ignore_errors=True)  # console scripts made for this machine's Python
    for cache in libs.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    versions = dict(info.name.removesuffix(".dist-info").split("-", 1) for info in sorted(libs.glob("*.dist-info")))
    stamp = {"target": args.target, "refscore": wheel.name, "pythons": covered, "packages": versions}
    (bundled / "bundle.json").write_text(json.dumps(stamp, indent=2) + "\n")
    size = sum(p.stat().st_size for p in libs.rglob("*") if p.is_file())
    print(f"bundled/libs for {args.target}: {len(versions)} packages, {size / 1e6:.1f} MB, CPython {', '.join(covered)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
