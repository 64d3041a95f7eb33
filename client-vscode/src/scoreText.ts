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
  // behaviour leads where it ran; then the first thing that differs (an input, else a difference)
  const behaviour = answer.behaviour;
  let first: string | undefined;
  if (isRecord(behaviour) && typeof behaviour.agreed === "number" && typeof behaviour.inputs === "number") {
    parts.push(`behaves alike on ${behaviour.agreed}/${behaviour.inputs} inputs`);
    first = typeof behaviour.difference === "string" ? behaviour.difference : undefined;
  }
  const differences = Array.isArray(answer.differences) ? answer.differences.filter(isRecord) : [];
  if (first === undefined && differences.length > 0 && typeof differences[0].reason === "string") {
    first = typeof differences[0].line === "number" ? `line ${differences[0].line + 1}: ${differences[0].reason}` : differences[0].reason;
  }
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
  const more = first !== undefined ? `. ${first}` : "";
  return { message: printable(`Selection: ${scores}${where}${tail}${more}`), region, failed: parts.length === 0 };
}
