/** What `refscore.rankAlternatives`, `refscore.referenceChoices` and `refscore.compareWith` answer, in words (no vscode here: unit-tested). */

import { printable } from "./printable";
import { isRange, isRecord, type LspRange } from "./protocol";
import { baseName, fmt } from "./summary";

export const RANK_ALTERNATIVES = "refscore.rankAlternatives";
export const REFERENCE_CHOICES = "refscore.referenceChoices";
export const COMPARE_WITH = "refscore.compareWith";

/** One alternative as a quick pick shows it: the rank and label, the verdict, the differences. */
export interface AlternativeView {
  label: string;
  description: string;
  detail: string;
  /** The reference function it was compared with. */
  region?: { uri: string; range: LspRange; function: string | null };
}

function behaviourWords(value: unknown): string {
  if (!isRecord(value)) {
    return "behaviour not run";
  }
  if (typeof value.notRun === "string") {
    return `behaviour not run (${value.notRun})`;
  }
  if (typeof value.agreed === "number" && typeof value.inputs === "number") {
    return `behaves alike on ${value.agreed}/${value.inputs} inputs`;
  }
  return "behaviour not run";
}

/** One alternative (or a comparison) of the server's answer. */
export function describeAlternative(item: unknown): AlternativeView {
  if (!isRecord(item)) {
    return { label: "?", description: "", detail: "" };
  }
  const r = item.region;
  const region = isRecord(r) && typeof r.uri === "string" && isRange(r.range)
    ? { uri: r.uri, range: r.range, function: typeof r.function === "string" ? r.function : null } : undefined;
  const against = region === undefined ? "no reference function" : `vs ${region.function ?? "the whole reference"} (${baseName(region.uri)}:${region.range.start.line + 1})`;
  const rank = typeof item.rank === "number" ? `${item.rank}. ` : "";
  const codebleu = typeof item.codebleu === "number" ? ` · CodeBLEU ${fmt(item.codebleu)}` : "";
  const behaviour = item.behaviour;
  const lines: string[] = [];
  if (isRecord(behaviour) && typeof behaviour.difference === "string") {
    lines.push(behaviour.difference);
  }
  const differences = Array.isArray(item.differences) ? item.differences.filter(isRecord) : [];
  for (const d of differences.slice(0, 3)) {
    if (typeof d.reason === "string") {
      lines.push(typeof d.line === "number" ? `line ${d.line + 1}: ${d.reason}` : d.reason);
    }
  }
  if (lines.length === 0) {
    lines.push(differences.length === 0 ? "no differences found" : "");
  }
  return {
    label: printable(`${rank}${typeof item.label === "string" ? item.label : "alternative"}`),
    description: printable(`${behaviourWords(behaviour)}${codebleu} ${against}`),
    detail: printable(lines.join(" · ")),
    region,
  };
}

/** The ranking's answer: the alternatives best first, or the error to show. */
export function describeRanking(answer: unknown): { items: AlternativeView[]; error?: string } {
  if (!isRecord(answer)) {
    return { items: [], error: "RefScore: the server gave no answer." };
  }
  if (typeof answer.error === "string") {
    return { items: [], error: printable(`RefScore: ${answer.error}`) };
  }
  return { items: Array.isArray(answer.ranked) ? answer.ranked.map(describeAlternative) : [] };
}

/** One reference function the function at the cursor may implement. */
export interface ChoiceView {
  label: string;
  description: string;
  name: string;
}

/** `refscore.referenceChoices`: the reference functions, best first. */
export function describeChoices(answer: unknown): { function?: string; items: ChoiceView[]; error?: string } {
  if (!isRecord(answer)) {
    return { items: [], error: "RefScore: the server gave no answer." };
  }
  if (typeof answer.error === "string") {
    return { items: [], error: printable(`RefScore: ${answer.error}`) };
  }
  const items: ChoiceView[] = [];
  for (const c of Array.isArray(answer.choices) ? answer.choices.filter(isRecord) : []) {
    if (typeof c.function !== "string" || typeof c.uri !== "string") {
      continue;
    }
    const why = [c.signature === true ? "same parameters" : "", c.sharedWord === true ? "similar name" : "",
      typeof c.codebleu === "number" ? `CodeBLEU ${fmt(c.codebleu)}` : ""].filter((w) => w !== "").join(" · ");
    items.push({ label: printable(c.function), description: printable(`${baseName(c.uri)} · ${why}`), name: c.function });
  }
  return { function: typeof answer.function === "string" ? answer.function : undefined, items };
}
