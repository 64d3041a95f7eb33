"""Pass one over a run's blocks: what there is, what earlier runs scored, the run's corpus.

Every ``grade`` run reads its inputs as blocks (``Sources.scan``): the submissions read into
memory first, then each JSONL/Parquet file. Pass one (``plan_run``) walks every block once,
holding one at a time: it counts the items, notes empty references and reference files that do
not parse, counts the CrystalBLEU corpus (``RunCorpus``) and then keys each block by
its content and everything that decides its rows (``BlockWork.tag``), so the parts of earlier
runs tell which items need no scoring. An engine then scores the pending items (pass two) and
``assemble`` writes the reports from the parts.

CrystalBLEU's ignored n-grams come from the run's own texts: the corpus of a language is every
distinct submission and reference of the run's scorable items in that language, counted item by
item (the candidate, then its references) before any block is scored, so every engine and every
block size gives each submission the same ``report.crystalbleu`` (scored by the pipeline's corpus
stage against ``CorpusStatistics(corpus)``). A language with fewer texts than CrystalBLEU needs
gets one error line per submission instead. The corpus travels to workers as plain data.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import InputFileError, UsageError
from ..files.sources import empty_reference
from ..metrics.crystalbleu import IgnoredNgrams, NgramCounts, code_tokens
from ..settings_schema import IDF_ONE_REFERENCE, idf_lacks_references
from ..scoring.checks import syntax_error_line
from .blocks import BlockSpec, count_lines, item_blocks, items_of, scan_blocks
from .records import FieldNames
from .items import GradeItem
from .parts import PartStore
from .settings import GradeSettings

#: language -> its ignored n-grams, or the one-line reason there are none.
Corpus = dict[str, "IgnoredNgrams | str"]


@dataclass(frozen=True)
class BlockWork:
    """What scoring any block of the run needs besides its items (plain data for Ray workers)."""

    settings: GradeSettings
    language: str | None = None  # the default language of JSONL lines (--lang)
    detail: bool = False  # keep each item's texts and full report for the detailed HTML page
    corpus: Corpus | None = None  # with CrystalBLEU: each language's ignored n-grams
    device_kind: str = "cpu"  # "cuda" when CodeBERTScore runs on GPUs (half precision)
    fields: FieldNames = ()  # --fields: the input names of known JSONL fields
    sandbox: str | None = None  # with behaviour: where it runs candidates (``run._sandbox_kind``)

    def tag(self) -> str:
        """Everything besides a block's items that decides its rows (part of each part key)."""
        bert = "codebertscore" in self.settings.metrics
        extra = {"lang": self.language, "device": self.device_kind if bert else None, "detail": self.detail,
                 "corpus": corpus_tag(self.corpus) if self.corpus is not None else None,
                 **({"fields": [list(p) for p in self.fields]} if self.fields else {}),
                 **({"sandbox": self.sandbox} if self.sandbox is not None else {})}
        return self.settings.cache_tag() + json.dumps(extra, sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings.to_dict(), "language": self.language, "detail": self.detail,
                "corpus": corpus_to_data(self.corpus) if self.corpus is not None else None,
                "device_kind": self.device_kind, "fields": [list(p) for p in self.fields], "sandbox": self.sandbox}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BlockWork":
        corpus = corpus_from_data(data["corpus"]) if data.get("corpus") is not None else None
        return cls(GradeSettings.from_dict(data["settings"]), data.get("language"), bool(data.get("detail")),
                   corpus, str(data.get("device_kind", "cpu")),
                   tuple((str(a), str(b)) for a, b in data.get("fields", ())), data.get("sandbox"))


@dataclass(frozen=True)
class PlannedBlock:
    """A block of the run, the key of its parts and what earlier runs scored of it."""

    spec: BlockSpec
    key: str
    before: frozenset[int] | None = frozenset()  # offsets scored by an earlier run; None: all of them

    @property
    def index(self) -> int:
        return self.spec.index

    @property
    def items(self) -> int:
        return self.spec.items


@dataclass
class Plan:
    """Pass one's findings."""

    blocks: list[PlannedBlock]
    work: BlockWork
    notes: list[str] = field(default_factory=list)

    @property
    def items(self) -> int:
        return sum(b.items for b in self.blocks)

    @property
    def blank_lines(self) -> int:
        return sum(b.spec.lines - b.spec.items for b in self.blocks)

    @property
    def pending(self) -> list[PlannedBlock]:
        """Blocks with items no part holds."""
        return [b for b in self.blocks if b.before is not None]

    @property
    def from_before(self) -> int:
        return sum(b.items if b.before is None else len(b.before) for b in self.blocks)


class Sources:
    """A run's inputs: submissions read into memory, then JSONL/Parquet files read block by block."""

    def __init__(self, items: Sequence[GradeItem], jsonl: Sequence[Path], language: str | None,
                 block_lines: int, fields: FieldNames = ()) -> None:
        for path in jsonl:
            _check_not_a_stream(path)
        # a file named twice (``a.jsonl ./a.jsonl``) is read once, as a submission file is
        files = list(dict.fromkeys(Path(p).resolve() for p in jsonl))
        self.items, self.jsonl, self.language = list(items), files, language
        self.block_lines, self.fields = block_lines, fields
        #: keep the blocks of the first full scan for the next ones (a run small enough to hold)
        self.remember = False
        self._kept: list[tuple[BlockSpec, list[tuple[int, GradeItem]]]] | None = None

    def scan(self, spool_dir: Path | None = None) -> Iterator[tuple[BlockSpec, list[tuple[int, GradeItem]]]]:
        """Every block, in order, with its items (offset within the block, item)."""
        if self._kept is not None and spool_dir is None:
            yield from self._kept
            return
        if not self.remember or spool_dir is not None:
            yield from self._read(spool_dir)
            return
        kept = []
        for block in self._read(None):
            kept.append(block)
            yield block
        self._kept = kept

    def _read(self, spool_dir: Path | None) -> Iterator[tuple[BlockSpec, list[tuple[int, GradeItem]]]]:
        index = 0
        for spec, chunk in item_blocks(self.items, self.block_lines, "", spool_dir):
            index = spec.index + 1
            yield spec, list(enumerate(chunk))
        for spec, lines in scan_blocks(self.jsonl, self.block_lines, "", spool_dir, first_index=index):
            yield spec, items_of(spec.name, spec.first_line, lines, self.language, self.fields)

    def lines(self) -> int:
        """Items in memory plus physical lines of the files (the run's size, for progress)."""
        return len(self.items) + sum(count_lines(p) for p in self.jsonl)


def _check_not_a_stream(path: Path) -> None:
    """A pipe, FIFO or device named as a JSONL file (``--jsonl /dev/stdin``) is refused as the
    name given (resolved, a pipe's name is ``/proc/N/fd/pipe:[M]``, "no such file")."""
    from ..safe_read import kind_of

    try:
        kind = kind_of(os.stat(path).st_mode)
    except (OSError, ValueError):
        return  # the reader says what is wrong with it
    if kind not in (None, "a directory"):
        raise InputFileError(f"{path}: is {kind}, not a regular file; --jsonl reads regular files, and a "
                             "stream piped to --jsonl - (standard input)")


def _row_reference(item: GradeItem, index: int, name: str) -> bool:
    """True for a JSONL row's reference, only numbered (``reference 1``), not a file's."""
    return name == f"reference {index + 1}" and bool(item.source)


class UnparsedReferences:
    """The run's reference files that do not parse, for pass one's notes, each file once (a
    JSONL row's references, function bodies as often as not, are left unsaid): the submissions
    are compared with what the parser recovered, and none of their syntax errors is flagged."""

    def __init__(self) -> None:
        self.checked: set[tuple[str, str | None]] = set()
        self.lines: dict[str, int] = {}

    def add(self, item: GradeItem) -> None:
        """Check each reference file of ``item`` not checked yet (in the language of a scorable
        item: a wrong-language submission's would misread it)."""
        if not item.scorable:
            return
        for index, (name, text) in enumerate(zip(item.reference_names, item.references)):
            if _row_reference(item, index, name) or (name, item.language) in self.checked or not text.strip():
                continue
            self.checked.add((name, item.language))
            line = syntax_error_line(text, item.language or "")
            if line is not None:
                self.lines[name] = line

    def notes(self) -> list[str]:
        """One line per reference file that does not parse."""
        return [f"the reference {name} does not parse (syntax error near line {line}): submissions are compared "
                "with the code the parser recovered, and their own syntax errors are flagged only where a "
                "reference parses" for name, line in sorted(self.lines.items())]


class EmptyReferences:
    """The run's empty references, for pass one's notes: a reference file by its name, JSONL
    rows (whose references are only numbered) by their lines, the first few of them."""

    SHOWN = 5

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.rows: list[str] = []

    def add(self, item: GradeItem) -> None:
        """Note each empty reference of ``item`` (one graded against it: an error row is not)."""
        if item.error is not None:
            return
        for index, (name, text) in enumerate(zip(item.reference_names, item.references)):
            if text.strip():
                continue
            if _row_reference(item, index, name):
                self.rows.append(f"{item.source} ({name})" if len(item.references) > 1 else item.source)
            else:
                self.files.add(empty_reference(name, text) or name)

    def notes(self) -> list[str]:
        """One line per empty reference file, one for the JSONL rows."""
        notes = [f"{line}, so what is graded against it scores 0" for line in sorted(self.files)]
        if self.rows:
            shown = ", ".join(self.rows[:self.SHOWN]) + (f" and {len(self.rows) - self.SHOWN} more"
                                                         if len(self.rows) > self.SHOWN else "")
            notes.append(f"{len(self.rows)} empty reference(s): {shown}: there is nothing to compare with, "
                         "so a row graded against only an empty reference scores 0")
        return notes


class RunCorpus:
    """Pass one: the distinct texts of every scorable item, counted per language."""

    def __init__(self) -> None:
        self._counts: dict[str, NgramCounts] = {}
        self._seen: dict[str, set[bytes]] = {}

    def add(self, item: GradeItem) -> None:
        """Count the item's candidate and references (each distinct text once per language)."""
        if not item.scorable:
            return
        language = item.language or ""
        counts = self._counts.setdefault(language, NgramCounts())
        seen = self._seen.setdefault(language, set())
        for text in (item.candidate or "", *item.references):
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            if digest not in seen:
                seen.add(digest)
                counts.add(code_tokens(text, language))

    def finish(self) -> Corpus:
        """Each language's ignored n-grams (or why it has none)."""
        out: Corpus = {}
        for language, counts in self._counts.items():
            try:
                out[language] = counts.ignored()
            except ValueError as error:
                out[language] = str(error)
        return out


def corpus_tag(corpus: Corpus) -> str:
    """What names the corpus in block keys: a new corpus is a new score."""
    return json.dumps({lang: v if isinstance(v, str) else v.digest for lang, v in sorted(corpus.items())})


def corpus_to_data(corpus: Corpus) -> dict[str, Any]:
    """Plain JSON-ready data (sent to Ray workers)."""
    return {lang: v if isinstance(v, str) else {"ngrams": sorted(list(g) for g in v.ngrams), "k": v.k,
                                                "documents": v.documents}
            for lang, v in corpus.items()}


def corpus_from_data(data: dict[str, Any]) -> Corpus:
    """The inverse of ``corpus_to_data``."""
    return {lang: v if isinstance(v, str) else IgnoredNgrams(frozenset(tuple(g) for g in v["ngrams"]),
                                                             int(v["k"]), int(v["documents"]))
            for lang, v in data.items()}


def part_key(spec: BlockSpec, tag: str) -> str:
    """The key of a block's parts: its content key and the run's ``tag``."""
    return hashlib.sha256(f"{spec.key}\n{tag}".encode("utf-8")).hexdigest()


def plan_run(sources: Sources, work: BlockWork, store: PartStore, spool_dir: Path | None = None) -> Plan:
    """Pass one (see the module docstring); ``work.corpus`` is filled here when CrystalBLEU is asked for."""
    corpus = RunCorpus() if "crystalbleu" in work.settings.metrics else None
    specs: list[BlockSpec] = []
    empty, unparsed = EmptyReferences(), UnparsedReferences()
    idf_refs = idf_lacks_references(work.settings.settings, 0)  # asked for: count them
    seen_refs: set[str] = set()  # with ``--idf references``: up to two distinct reference texts
    for spec, items in sources.scan(spool_dir):
        specs.append(spec)
        for _, item in items:
            if corpus is not None:
                corpus.add(item)
            empty.add(item)
            unparsed.add(item)
            if idf_refs and len(seen_refs) < 2:
                seen_refs.update(item.references)
    if idf_refs and specs and idf_lacks_references(work.settings.settings, len(seen_refs)):
        raise UsageError(f"--idf references {IDF_ONE_REFERENCE}: give an IDF file (--idf FILE) or more references")
    if corpus is not None:
        work = replace(work, corpus=corpus.finish())  # every other field (--fields too) kept
    tag = work.tag()
    blocks = []
    for spec in specs:
        key = part_key(spec, tag)
        done = store.done_offsets(spec.index, key, spec.items)
        blocks.append(PlannedBlock(spec, key, None if done is None else frozenset(done)))
    return Plan(blocks, work, [*empty.notes(), *unparsed.notes(), *store.notes])  # damaged parts found (scored again)
