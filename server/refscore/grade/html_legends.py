"""The HTML report's legends: what the combined RefScore number is (and how far it was found to
agree, held out), and what the code panes' colours and underlines mean."""

from __future__ import annotations

from ..vocabulary import WEAK_TOKEN_THRESHOLD
from .heatmap import BUCKET_COLORS, bucket_edges, missing_color, safe_text


def trust_note() -> str:
    """What the combined RefScore number is and how far it was found to agree (held out)."""
    from ..combined.labels import input_families
    from ..scoring.headline import headline_model

    model = headline_model() or {}
    held = (model.get("verdict") or {}).get("combined") or {}
    families = input_families(model.get("features", []))
    kinds = ", ".join(families[:-1]) + f" and {families[-1]}" if len(families) > 1 else "".join(families)
    measured = ""
    if held.get("humaneval_tau") is not None and held.get("conala_tau") is not None:
        measured = (f" On problems it was not fitted on it ordered candidates as the tests did with Kendall tau "
                    f"{held['humaneval_tau']:.2f} (HumanEval) and agreed with human graders at tau "
                    f"{held['conala_tau']:.2f} (CoNaLa), better than any single metric.")
    return (f'<p class="legend">RefScore combines signals from {safe_text(kinds or "several metrics")} into '
            "one number in 0..1: how likely the code is correct, judging by its similarity to the reference."
            f"{safe_text(measured)} Use it to rank submissions and to find the ones worth reading; a correct "
            "solution written differently from the reference can still score low.</p>")


def legend(with_bert: bool, threshold: float = WEAK_TOKEN_THRESHOLD) -> str:
    missing = ('<span class="miss">red underline</span> = in the reference but missing from the candidate '
               "(CodeBLEU explanations)")
    if not with_bert:
        shades = "".join(f'<span style="background:{missing_color(k)}">{k}{"+" if k == 3 else ""}</span>'
                         for k in (1, 2, 3))
        return (f'<p class="legend">{missing}; the reference is shaded by how many CodeBLEU components miss '
                f"each part {shades}. Token colours need CodeBERTScore (--metrics codebertscore).</p>")
    edges = bucket_edges(threshold)
    below = " ".join(f'<span style="background:{BUCKET_COLORS[b]}">{b} &lt; {edge:.2f}</span>'
                     for b, edge in edges.items())
    return ('<p class="legend">Token colours: CodeBERTScore similarity of each token to its best match on '
            f"the other side, in the heat buckets around the weak-token threshold {threshold:.2f} "
            f"{below}; tokens at {max(edges.values()):.2f} or above are not coloured; in the reference, a "
            f"coloured token is one the candidate lacks; {missing}.</p>")
