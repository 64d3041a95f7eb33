/** The `refscore/scoreText` answer as one line for a message, and the region to jump to. */

import { printable } from "./printable";
import { isRange, isRecord } from "./protocol";
import type { Target } from "./items";
import { baseName, fmt } from "./summary";

export interface ScoreTextView {
  message: string;
  /** The reference region the selection was compared with. */
  region?: Target;
  failed: boolean;
}

export function describeScoreText(answer: unknown): ScoreTextView {
  if (!isRecord(answer)) {
    return { message: "RefScore: the server gave no answer for the selection.", failed: true };
  }
  if (typeof answer.error === "string") {
    return { message: printable(`RefScore: ${answer.error}`), failed: true };
  }
  const parts: string[] = [];
  const codebleu = answer.codebleu;
  if (isRecord(codebleu)) {
    parts.push(`CodeBLEU ${fmt(codebleu.score as number | null)}`);
  }
  const bert = answer.codebertscore;
  if (isRecord(bert)) {
    parts.push(`F3 ${fmt(bert.f3 as number | null)}`, `F1 ${fmt(bert.f1 as number | null)}`);
  }
  let where = "";
  let region: Target | undefined;
  const r = answer.region;
  if (isRecord(r) && typeof r.uri === "string" && isRange(r.range)) {
    const name = typeof r.function === "string" && r.function ? `function ${r.function}` : "the whole reference";
    where = ` vs ${name} (${baseName(r.uri)}:${r.range.start.line + 1})`;
    region = { uri: r.uri, line: r.range.start.line, character: r.range.start.character };
  }
  const errors = Array.isArray(answer.errors) ? answer.errors.filter((e) => typeof e === "string") : [];
  const tail = errors.length > 0 ? ` (${errors.join("; ")})` : "";
  const scores = parts.length > 0 ? parts.join(" · ") : "no scores";
  // the function's name is the reference's code, the errors may quote it: shown as the server shows code in messages
  return { message: printable(`Selection: ${scores}${where}${tail}`), region, failed: parts.length === 0 };
}
