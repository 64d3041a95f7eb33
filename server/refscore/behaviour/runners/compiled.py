"""C, C++ and Java in the sandbox: a program compiled once in a sandbox of its own (the compiler's
output comes back on standard output: the executable, or for Java a tar of the class files, made
into a jar here), then run with each standard input in a fresh sandbox that is given it as a file.

Which toolchain: ``gcc``/``g++`` (else ``clang``/``clang++``) under ``/usr``; for Java the JDK of
``$JAVA_HOME``, else of ``javac`` on the ``PATH``, else the first under ``/usr/lib/jvm`` (shown in
the sandbox read-only, with the folders outside ``/usr`` its configuration links point into, such
as Debian's ``/etc/java-17-openjdk``). Nothing here runs untrusted code outside ``sandbox``.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath

from ... import languages
from ..sandbox import BOX, Completed, Limits, Sandbox

#: What one compilation may use: compilers start many processes and need room.
COMPILE_LIMITS = Limits(wall_seconds=60.0, cpu_seconds=60, memory_bytes=2 << 30, file_bytes=64 << 20,
                        open_files=256, processes=64, output_bytes=16 << 20, tmp_bytes=256 << 20)
#: The JVM of a Java run: a bounded heap, a deep stack, one collector thread, the quick JIT only.
JAVA_FLAGS = ("-Xmx256m", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
              "-XX:ActiveProcessorCount=1", "-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=32m",
              "-XX:MaxMetaspaceSize=128m", "-Xshare:auto")
#: javac's own JVM.
JAVAC_FLAGS = ("-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-XX:ActiveProcessorCount=1",
               "-J-Xshare:auto")
#: A Java run's address space (the JVM reserves the heap, metaspace, code cache and stacks up front)
#: and threads (each counts as a process).
JAVA_MEMORY = 3 << 29  # 1.5 GiB
JAVA_PROCESSES = 32
#: glibc keeps one 64 MiB malloc arena per thread; a JVM's threads would exhaust the address space.
_FEW_ARENAS = "MALLOC_ARENA_MAX=2"

_ERROR_LINE = re.compile(r"\berror\b|undefined reference", re.IGNORECASE)


@dataclass(frozen=True)
class Toolchain:
    """How one language is compiled and run: the compiler (or JDK home), the folders outside
    ``/usr`` the sandbox must show, and the runtime as the signature names it."""

    language: str
    compiler: str
    runtime: str
    binds: tuple[str, ...] = ()
    java_home: str | None = None

    @property
    def kind(self) -> str:
        """The registry's runner for the language (``gcc``, ``g++``, ``javac``)."""
        return languages.get(self.language).runner


@dataclass(frozen=True)
class Compiled:
    """A compiled program (``files`` to give each run, what to run) or why it did not compile."""

    files: tuple[tuple[str, bytes], ...] = ()
    main_class: str | None = None  # Java
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether it compiled."""
        return self.error is None


# --- finding the toolchain ------------------------------------------------------------------------

#: Per runner of the registry (``LanguageSpec.runner``): the compilers tried, in order.
_COMPILERS = {"gcc": ("gcc", "clang"), "g++": ("g++", "clang++")}
_MISSING_BY_KIND = {"gcc": "no C compiler (gcc) on this machine", "g++": "no C++ compiler (g++) on this machine",
                    "javac": "no JDK (javac) on this machine"}
#: Per language of the registry this module compiles: why it cannot be run here.
_MISSING = {spec.name: _MISSING_BY_KIND[spec.runner] for spec in languages.LANGUAGES if spec.runner in _MISSING_BY_KIND}


@cache
def find_toolchain(language: str) -> Toolchain | str:
    """The toolchain for ``language`` ("c", "cpp", "java"), or one line saying why there is none."""
    kind = languages.get(language).runner
    if kind == "javac":
        return _find_jdk(language) or _MISSING[language]
    for command in _COMPILERS.get(kind, ()):
        path = _under_usr(command)
        if path is not None:
            return Toolchain(language, path, f"cc:{command}-{_dump_version(path)}")
    return _MISSING.get(language, f"no toolchain for {language}")


def _under_usr(command: str) -> str | None:
    """``command`` on the PATH when the sandbox can see it (under ``/usr``)."""
    for folder in ("/usr/bin", "/usr/local/bin"):
        path = shutil.which(command, path=folder)
        if path and os.path.realpath(path).startswith("/usr/"):
            return path
    return None


def _dump_version(compiler: str) -> str:
    try:
        out = subprocess.run([compiler, "-dumpversion"], capture_output=True, text=True, timeout=20,
                             check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out.split(".")[0] if out else "unknown"


def _find_jdk(language: str) -> Toolchain | None:
    homes: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        homes.append(Path(os.environ["JAVA_HOME"]))
    javac = shutil.which("javac")
    if javac:
        homes.append(Path(os.path.realpath(javac)).parent.parent)
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        homes += sorted(p for p in jvm.iterdir() if p.is_dir() and not p.is_symlink())
    for home in homes:
        home = Path(os.path.realpath(home))
        if (home / "bin" / "javac").is_file() and (home / "bin" / "java").is_file():
            binds = tuple(dict.fromkeys([*([] if str(home).startswith("/usr/") else [str(home)]),
                                         *_link_folders(home)]))
            return Toolchain(language, str(home / "bin" / "javac"), f"jdk:{_jdk_version(home)}", binds, str(home))
    return None


def _link_folders(home: Path) -> list[str]:
    """Folders outside ``/usr`` and the JDK that its configuration links point into (Debian's
    ``/etc/java-17-openjdk``, ``/etc/ssl/certs/java``), to be shown read-only too."""
    folders: set[str] = set()
    for sub in ("conf", "lib"):
        for root, _dirs, names in os.walk(home / sub):
            for name in names:
                path = Path(root) / name
                if not path.is_symlink():
                    continue
                target = os.path.realpath(path)
                if target.startswith(("/usr/", str(home) + "/")) or not os.path.exists(target):
                    continue
                folders.add(os.path.dirname(target))
    return sorted(f for f in folders if f != "/" and not any(f.startswith(o + "/") for o in folders))


def _jdk_version(home: Path) -> str:
    try:
        for line in (home / "release").read_text(errors="replace").splitlines():
            if line.startswith("JAVA_VERSION="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"


# --- compiling ----------------------------------------------------------------------------------

def first_error(stderr: bytes) -> str:
    """The compiler's first error as one short line (the sandbox's ``/box/`` left out)."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    chosen = next((line for line in lines if _ERROR_LINE.search(line)), lines[0] if lines else "")
    chosen = chosen.replace(BOX + "/", "")
    return (chosen[:200] + "...") if len(chosen) > 200 else (chosen or "the compiler failed")


def _script(lines: str) -> list[str]:
    """``sh -c`` with the source as ``$1`` (a ``/box`` path; rewritten when unsandboxed) and a
    private work folder (removed afterwards, for the unsandboxed case)."""
    return ["sh", "-c", 'd=$(mktemp -d) || exit 125\n' + lines + '\ns=$?; rm -rf "$d"; exit $s', "sh"]


def compile_program(sandbox: Sandbox, toolchain: Toolchain, source: str) -> Compiled:
    """``source`` compiled in a sandbox (cached per toolchain and source)."""
    return _compile(sandbox, toolchain, source)


@lru_cache(maxsize=32)
def _compile(sandbox: Sandbox, toolchain: Toolchain, source: str) -> Compiled:
    if toolchain.kind == "javac":
        return _compile_java(sandbox, toolchain, source)
    name = "program.c" if toolchain.kind == "gcc" else "program.cpp"
    flags = ["-O2", "-pipe", "-w"]
    if not toolchain.runtime.startswith("cc:clang"):
        flags += ["-fdiagnostics-plain-output", "-fmax-errors=5"]
    libraries = " -lm" if toolchain.kind == "gcc" else ""
    command = (f'LC_ALL=C {shlex.quote(toolchain.compiler)} {" ".join(flags)} -o "$d/program" "$1"{libraries} >&2'
               ' && cat "$d/program"')
    done, failed = _run_compiler(sandbox, toolchain, command, name, source)
    if failed is not None:
        return failed
    return Compiled(files=(("program", done.stdout),), seconds=done.seconds)


def _run_compiler(sandbox: Sandbox, toolchain: Toolchain, command: str, name: str,
                  source: str) -> tuple[Completed, Compiled | None]:
    """``command`` run in a sandbox on ``source``, saved there as ``name`` (its path is ``$1``):
    what the run did, and the failed ``Compiled`` when it did not compile."""
    done = sandbox.run([*_script(command), f"{BOX}/{name}"], {name: source}, limits=COMPILE_LIMITS,
                       binds=toolchain.binds)
    error = _compile_failure(done)
    return done, (Compiled(error=error, seconds=done.seconds) if error is not None else None)


def _compile_failure(done: Completed) -> str | None:
    if done.timed_out:
        return f"the compiler ran longer than {COMPILE_LIMITS.wall_seconds:.0f} s"
    if done.output_capped:
        return f"the compiled program is larger than {COMPILE_LIMITS.output_bytes >> 20} MiB"
    if done.returncode != 0:
        return first_error(done.stderr)
    if not done.stdout:
        return "the compiler wrote nothing"
    return None


def _compile_java(sandbox: Sandbox, toolchain: Toolchain, source: str) -> Compiled:
    file_class, main_class = java_classes(source)
    name = f"{file_class}.java"
    command = (f'LC_ALL=C {_FEW_ARENAS} {shlex.quote(toolchain.compiler)} {" ".join(JAVAC_FLAGS)} -encoding UTF-8 -nowarn'
               ' -d "$d" "$1" >&2 && cd "$d" && tar cf - .')
    done, failed = _run_compiler(sandbox, toolchain, command, name, source)
    if failed is not None:
        return failed
    try:
        jar = _jar(done.stdout)
    except (tarfile.TarError, ValueError, OSError) as problem:
        return Compiled(error=f"unreadable class files ({problem})", seconds=done.seconds)
    return Compiled(files=(("program.jar", jar),), main_class=main_class, seconds=done.seconds)


def _jar(tar_bytes: bytes) -> bytes:
    """The ``.class`` files of a tar (read in memory, nothing written) as a jar."""
    out = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as archive, zipfile.ZipFile(out, "w") as jar:
        for member in archive.getmembers():
            path = PurePosixPath(member.name)
            if not member.isfile() or path.suffix != ".class" or path.is_absolute() or ".." in path.parts:
                continue
            data = archive.extractfile(member)
            if data is None:
                continue
            jar.writestr(str(PurePosixPath(*[p for p in path.parts if p != "."])), data.read())
            count += 1
    if not count:
        raise ValueError("no class files")
    return out.getvalue()


# --- Java class names ---------------------------------------------------------------------------

_JAVA_NOISE = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*[\s\S]*?\*/')
_JAVA_TYPE = re.compile(r"\b((?:(?:public|protected|private|final|abstract|static|strictfp|sealed|non-sealed)\s+)*)"
                        r"(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_JAVA_MAIN = re.compile(r"\bvoid\s+main\s*\(")
_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


def java_classes(source: str) -> tuple[str, str]:
    """(the file's class: the public top-level type, or the main class; the class to run, with
    its package): read from the source, comments and strings left out."""
    text = _JAVA_NOISE.sub(lambda m: " " * len(m.group(0)), source)
    depth_at = _depths(text)
    top: list[tuple[str, bool, int, int]] = []  # name, public, body start, body end
    for match in _JAVA_TYPE.finditer(text):
        if depth_at[match.start()] != 0:
            continue
        start = text.find("{", match.end())
        end = _matching(text, start) if start >= 0 else len(text)
        top.append((match.group(2), "public" in match.group(1).split(), start, end))
    public = next((name for name, is_public, _s, _e in top if is_public), None)
    main = None
    for match in _JAVA_MAIN.finditer(text):
        main = next((name for name, _p, start, end in top if start <= match.start() < end), None)
        if main is not None:
            break
    main = main or public or (top[0][0] if top else "Main")
    package = _JAVA_PACKAGE.search(text)
    return public or main, f"{package.group(1)}.{main}" if package else main


def _depths(text: str) -> list[int]:
    depths, depth = [], 0
    for char in text:
        depths.append(depth)
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
    depths.append(depth)
    return depths


def _matching(text: str, start: int) -> int:
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


# --- running ------------------------------------------------------------------------------------

@cache
def jvm_problem(sandbox: Sandbox, toolchain: Toolchain) -> str | None:
    """Why the JVM does not start in ``sandbox`` under a run's limits (None when it does): else a
    reference and a candidate that both fail the same way would seem to agree."""
    done = sandbox.run(["/usr/bin/env", _FEW_ARENAS, str(Path(toolchain.java_home or "/usr") / "bin" / "java"),
                        *JAVA_FLAGS, "-version"], {}, limits=_java_limits(20.0), binds=toolchain.binds)
    if done.returncode == 0 and not done.timed_out:
        return None
    lines = (done.stderr + b"\n" + done.stdout).decode("utf-8", "replace").strip().splitlines()
    why = lines[-1].strip()[:120] if lines else ("timeout" if done.timed_out else f"exit status {done.returncode}")
    return f"the JVM does not start in the sandbox ({why})"


def _java_limits(wall_seconds: float) -> Limits:
    return Limits(wall_seconds=wall_seconds, cpu_seconds=int(wall_seconds) + 2, memory_bytes=JAVA_MEMORY,
                  processes=JAVA_PROCESSES)


def run_compiled(sandbox: Sandbox, toolchain: Toolchain, compiled: Compiled, stdin: str,
                 wall_seconds: float) -> Completed:
    """A compiled program run with ``stdin`` in a fresh sandbox."""
    if not compiled.ok:
        return Completed(b"", f"does not compile: {compiled.error}".encode(), 1)
    files = dict(compiled.files)
    if toolchain.kind == "javac":
        limits = _java_limits(wall_seconds)
        java = str(Path(toolchain.java_home or "/usr") / "bin" / "java")
        argv = ["/usr/bin/env", _FEW_ARENAS, java, *JAVA_FLAGS, "-cp", f"{BOX}/program.jar",
                compiled.main_class or "Main"]
    else:
        limits = Limits(wall_seconds=wall_seconds, cpu_seconds=int(wall_seconds) + 1)
        # The given files are read-only and not executable: copied into the private /tmp first.
        argv = [*_script('cp "$1" "$d/program" && chmod 700 "$d/program" && "$d/program"'), f"{BOX}/program"]
    return sandbox.run(argv, files, stdin=stdin.encode("utf-8"), limits=limits, binds=toolchain.binds)
