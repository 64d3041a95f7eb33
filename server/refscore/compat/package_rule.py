"""code-bert-score 0.4.1's batch effects as a ``BatchRule`` of RefScore's one CodeBERTScore path.

The drop-in ``refscore.compat.score`` scores through ``embed.bertscorer.BertScorer`` like every
other front end; this rule is all it adds. The package embeds and matches in padded batches, and
the padding leaks into its numbers in three ways that RefScore's own rule leaves out:

* windows of a long text are planned on the longest text of its embedding batch;
* a padding similarity of 0 takes part in the maximum of a text shorter than its batch's longest;
* the context (``sources``) ends where the package's decoding loop stops (``compat.sources``).

It also keeps the package's raw numbers (NaN for a zero IDF weight sum, nothing clamped) and
refuses a plain IDF dict without a weight for a token of the texts, as the package's KeyError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..errors import MissingIdfWeightError
from ..metrics.codebertscore import IdfTable, model_input
from .sources import with_package_sources

if TYPE_CHECKING:  # pragma: no cover
    from ..embed.bertscorer import Prepared, ScorePair
    from ..embed.encoder import Encoder
    from ..embed.prepared import PreparedText


@dataclass(frozen=True)
class PackageRule:
    """code-bert-score's batches of ``batch_size``; ``sources``: the call gave contexts (they
    change the package's batch order); ``idf_dict``: the call's plain ``{token_id: weight}`` IDF
    dict, to check."""

    batch_size: int = 64
    sources: bool = False
    idf_dict: Mapping[Any, float] | None = field(default=None, compare=False)
    raw: bool = True

    def plan_lengths(self, encoder: "Encoder", pairs: Sequence["ScorePair"]) -> dict[str, int]:
        """Window-plan lengths that reproduce the package's long-input handling: it plans the
        windows of every text in a padded embedding batch on the batch's longest text, so a text
        longer than 3/4 of the window gets different vectors when a batch-mate exceeds the window.
        Batches: references then candidates in order with ``sources``; otherwise the distinct
        texts sorted by word count (longest first). Empty when no text can exceed the window."""
        groups = [[p.references] if isinstance(p.references, str) else list(p.references) for p in pairs]
        refs = [model_input(r, p.context).text for p, group in zip(pairs, groups) for r in group]
        hyps = [model_input(p.candidate, p.context).text for p, group in zip(pairs, groups) for _ in group]
        every = refs + hyps
        if not every:
            return {}
        limit = encoder.window
        size_of = {t: len(t.encode("utf-8", "surrogatepass")) + 2 for t in dict.fromkeys(every)}  # >= tokens
        if max(size_of.values()) <= limit:
            return {}
        order = every if self.sources else sorted(size_of, key=lambda t: len(t.split(" ")), reverse=True)
        size = max(1, self.batch_size)
        chunks = [order[start:start + size] for start in range(0, len(order), size)]
        chunks = [c for c in chunks if max(size_of[t] for t in c) > limit]  # others cannot pass the window
        distinct = list(dict.fromkeys(t for c in chunks for t in c))
        lengths = {enc.text: len(enc.ids) for enc in encoder.tokenize(distinct, keep=True)}  # embed reuses it
        plans: dict[str, int] = {}
        for chunk in chunks:
            longest = max(lengths[t] for t in chunk)
            for t in chunk:
                plans[t] = longest
        return plans

    def rows(self, prepared: "Prepared", encoder: "Encoder") -> "Prepared":
        """The package's rows of a text with context (``compat.sources``); a plain IDF dict is
        checked against the rows' tokens."""
        out = with_package_sources(prepared, encoder) if self.sources else prepared
        if self.idf_dict is not None:
            _refuse_missing_weights(self.idf_dict, out.values())
        return out

    def floors(self, flat: Sequence[tuple["PreparedText", "PreparedText"]]) -> list[tuple[bool, bool]]:
        """Where the package's padded batches (``batch_size`` pairs in order) make a padding
        similarity of 0 take part in the maximum: (precision side, recall side) per pair."""
        out: list[tuple[bool, bool]] = []
        size = max(1, self.batch_size)
        for start in range(0, len(flat), size):
            chunk = flat[start:start + size]
            longest_c = max(len(c.rows) for c, _ in chunk)
            longest_r = max(len(r.rows) for _, r in chunk)
            out.extend((len(r.rows) < longest_r, len(c.rows) < longest_c) for c, r in chunk)
        return out


def _refuse_missing_weights(weights: Mapping[Any, float], texts: Any) -> None:
    """A plain dict weighs every token of the texts (the package looks each one up: KeyError);
    a ``defaultdict`` weighs the others with its default."""
    if getattr(weights, "default_factory", None) is not None:
        return
    weighed = IdfTable.from_mapping(weights).weights.keys()
    missing = sorted({i for text in texts for i in text.row_ids()} - weighed)
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise MissingIdfWeightError(f"idf: the dict has no weight for token id {shown} ({len(missing)} of the "
                                    "texts' tokens); weigh every token, or give a defaultdict whose default "
                                    "weighs the others (code_bert_score raises KeyError too)")
