/** Quick-pick entries for the score panel and the "missing from the reference" list. */

import { printable } from "./printable";
import type { MissingItem } from "./protocol";
import { baseName, COMPONENT_LABELS, fmt, type Summary } from "./summary";

/** Where choosing an entry jumps: a reference file, at a zero-based line and character. */
export interface Target {
  uri: string;
  line: number;
  character: number;
}

export interface Entry {
  label: string;
  description?: string;
  detail?: string;
  /** A separator heading when true (not selectable). */
  separator?: boolean;
  target?: Target;
}

const MAX_TEXT = 80;

/** Code as one line of a label: whitespace runs folded to one space, control and bidi characters visible. */
function oneLine(text: string): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}

function targetOf(item: MissingItem): Target {
  return { uri: item.uri, line: item.range.start.line, character: item.range.start.character };
}

/** One entry per missing item, in the server's order. */
export function missingEntries(items: readonly MissingItem[]): Entry[] {
  return items.map((item) => {
    const kind = COMPONENT_LABELS[item.kind] ?? item.kind;
    const similarity = typeof item.similarity === "number" ? ` · similarity ${fmt(item.similarity)}` : "";
    return {
      label: oneLine(item.text) || "(blank)",
      description: `${kind}${similarity}`,
      detail: `${baseName(item.uri)}:${item.range.start.line + 1}`,
      target: targetOf(item),
    };
  });
}

/**
 * The score panel: every CodeBLEU component and CodeBERTScore number, then the missing list.
 * A component jumps to the first thing of its kind the file lacks, else to the reference's top.
 */
export function scoreEntries(summary: Summary, missing: readonly MissingItem[]): Entry[] {
  const top: Target | undefined = summary.references[0] !== undefined ? { uri: summary.references[0], line: 0, character: 0 } : undefined;
  const firstOf = (kind: string): Target | undefined => {
    const found = missing.find((m) => m.kind === kind);
    return found !== undefined ? targetOf(found) : top;
  };
  const refs = summary.references.map(baseName).join(", ");
  const how = summary.referenceSource !== undefined ? ` (${summary.referenceSource})` : "";
  const out: Entry[] = [];
  if (summary.refscore !== undefined) {
    out.push({ label: "RefScore (combined)", separator: true });
    out.push({ label: `RefScore ${fmt(summary.refscore.score)}`, description: "how likely correct, judging by similarity", target: top });
    for (const pull of summary.refscore.strongest) {
      out.push({ label: pull.text, description: pull.contribution >= 0 ? "raised it" : "lowered it", target: top });
    }
  } else if (summary.refscoreWithheld !== undefined) {
    out.push({ label: "RefScore (combined)", separator: true });
    out.push({ label: "RefScore not shown", detail: summary.refscoreWithheld, target: top });
  }
  if (summary.codebleu !== undefined) {
    out.push({ label: "CodeBLEU", separator: true });
    out.push({ label: `CodeBLEU ${fmt(summary.codebleu.score)}`, description: `vs ${refs}${how}`, target: top });
    for (const [name, score] of Object.entries(summary.codebleu.components)) {
      const count = missing.filter((m) => m.kind === name).length;
      out.push({
        label: `${COMPONENT_LABELS[name] ?? name} ${fmt(score)}`,
        description: count > 0 ? `${count} missing` : undefined,
        target: firstOf(name),
      });
    }
  }
  out.push({ label: "CodeBERTScore", separator: true });
  const bert = summary.codebertscore;
  if (bert !== undefined) {
    const model = bert.model !== undefined ? `${bert.model}${bert.layer !== undefined ? ` layer ${bert.layer}` : ""}` : undefined;
    out.push({ label: `F3 ${fmt(bert.f3)}`, description: model, target: top });
    out.push({ label: `F1 ${fmt(bert.f1)}`, target: top });
    out.push({ label: `precision ${fmt(bert.precision)}`, target: top });
    out.push({ label: `recall ${fmt(bert.recall)}`, target: firstOf("codebertscore_recall") });
  } else {
    const setup = summary.bertState === "setup";
    out.push({
      label: `CodeBERTScore ${setup ? "not set up" : summary.bertState ?? "off"}`,
      description: setup ? "RefScore: Set Up CodeBERTScore" : undefined,
      detail: setup ? undefined : summary.bertNote,
    });
  }
  out.push({ label: `Missing from this file (${missing.length})`, separator: true });
  out.push(...missingEntries(missing));
  return out;
}
