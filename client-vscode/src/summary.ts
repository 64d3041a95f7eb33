/** The file's scores as the server publishes them (the summary diagnostic's `data`), and their text forms. */

import { printable } from "./printable";
import { isRecord, PROBLEM_CODE, SUMMARY_CODE } from "./protocol";
import { MISSING_LABELS } from "./vocabulary.generated";

export interface CodeBleuData {
  score: number | null;
  components: Record<string, number | null>;
}

export interface BertData {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  f3: number | null;
  model?: string;
  layer?: number;
}

/** The combined RefScore number (present only when the server computed it and its inputs lie inside its fit's data) and what moved it most. */
export interface RefScoreData {
  score: number | null;
  signature: string | undefined;
  strongest: { text: string; contribution: number }[];
}

/** `off`, `pending`, `done`, `skipped`, `unavailable` or `setup` (kept as a string: the server may add states). */
export type BertState = string;

export interface Summary {
  kind: "summary";
  version: number | undefined;
  references: string[];
  referenceSource: string | undefined;
  bertState: BertState | undefined;
  codebleu: CodeBleuData | undefined;
  codebertscore: BertData | undefined;
  refscore: RefScoreData | undefined;
  /** Why the combined number is not shown (outside its fit's data), in words. */
  refscoreWithheld?: string;
  /** Why CodeBERTScore was skipped or is unavailable, in words. */
  bertNote?: string;
  message: string;
}

export interface Problem {
  kind: "problem";
  version: number | undefined;
  message: string;
}

export type FileState = Summary | Problem;

/** The fields of a diagnostic this module reads (vscode.Diagnostic plus the client's `data`). */
export interface DiagnosticLike {
  code?: unknown;
  message: string;
  data?: unknown;
}

/** Labels of CodeBLEU components and missing-item kinds: the server's vocabulary (generated). */
export const COMPONENT_LABELS: Readonly<Record<string, string>> = MISSING_LABELS;

function codeOf(diagnostic: DiagnosticLike): string | undefined {
  const code = diagnostic.code;
  if (typeof code === "string") {
    return code;
  }
  if (isRecord(code) && typeof code.value === "string") {
    return code.value;
  }
  return undefined;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function parseCodeBleu(value: unknown): CodeBleuData | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const components: Record<string, number | null> = {};
  if (isRecord(value.components)) {
    for (const [name, score] of Object.entries(value.components)) {
      components[name] = num(score);
    }
  }
  return { score: num(value.score), components };
}

function parseBert(value: unknown): BertData | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  return {
    precision: num(value.precision),
    recall: num(value.recall),
    f1: num(value.f1),
    f3: num(value.f3),
    model: typeof value.model === "string" ? value.model : undefined,
    layer: typeof value.layer === "number" ? value.layer : undefined,
  };
}

function parseRefScore(value: unknown): RefScoreData | undefined {
  if (!isRecord(value) || num(value.score) === null) {
    return undefined;
  }
  const strongest = Array.isArray(value.strongest)
    ? value.strongest.filter(isRecord).flatMap((s) =>
      typeof s.text === "string" && num(s.contribution) !== null ? [{ text: s.text, contribution: num(s.contribution) as number }] : [])
    : [];
  return { score: num(value.score), signature: typeof value.signature === "string" ? value.signature : undefined, strongest };
}

/** The file's state from its RefScore diagnostics; undefined when there is none (no reference). */
export function fileState(diagnostics: readonly DiagnosticLike[]): FileState | undefined {
  for (const diagnostic of diagnostics) {
    const code = codeOf(diagnostic);
    const data = isRecord(diagnostic.data) ? diagnostic.data : {};
    const version = typeof data.version === "number" ? data.version : undefined;
    if (code === PROBLEM_CODE) {
      return { kind: "problem", version, message: diagnostic.message };
    }
    if (code === SUMMARY_CODE) {
      return {
        kind: "summary",
        version,
        references: Array.isArray(data.references) ? data.references.filter((r) => typeof r === "string") : [],
        referenceSource: typeof data.referenceSource === "string" ? data.referenceSource : undefined,
        bertState: typeof data.codebertscoreState === "string" ? data.codebertscoreState : undefined,
        codebleu: parseCodeBleu(data.codebleu),
        codebertscore: parseBert(data.codebertscore),
        refscore: parseRefScore(data.refscore),
        refscoreWithheld: typeof data.refscoreWithheld === "string" ? data.refscoreWithheld : undefined,
        bertNote: typeof data.codebertscoreNote === "string" ? data.codebertscoreNote : undefined,
        message: diagnostic.message,
      };
    }
  }
  return undefined;
}

/**
 * Whether the server is still working on the document: its text is newer than the scores, or
 * CodeBERTScore is pending (being computed, or the model is loading).
 */
export function isBusy(state: FileState | undefined, documentVersion: number | undefined): boolean {
  if (state === undefined) {
    return false;
  }
  if (state.version !== undefined && documentVersion !== undefined && state.version < documentVersion) {
    return true;
  }
  return state.kind === "summary" && state.bertState === "pending";
}

export function fmt(value: number | null | undefined): string {
  return typeof value === "number" ? value.toFixed(2) : "n/a";
}

/** What the status item says when CodeBERTScore needs RefScore: Set Up CodeBERTScore. */
export const SETUP_TEXT = "CodeBERTScore: set up";

/** `RefScore 0.71 · CodeBLEU 0.64 · F3 0.81` (RefScore when the server sent the combined number; `F3 …` while pending; `CodeBERTScore: set up` when it needs that), for the status bar. */
export function statusText(state: FileState, busy: boolean, bertSetup = false): string {
  const icon = busy ? "$(sync~spin)" : state.kind === "problem" ? "$(warning)" : "$(beaker)";
  if (state.kind === "problem") {
    return `${icon} RefScore`;
  }
  const parts: string[] = [];
  if (state.refscore !== undefined) {
    parts.push(`RefScore ${fmt(state.refscore.score)}`);
  }
  if (state.codebleu !== undefined) {
    parts.push(`CodeBLEU ${fmt(state.codebleu.score)}`);
  }
  if (state.codebertscore !== undefined) {
    parts.push(`F3 ${fmt(state.codebertscore.f3)}`);
  } else if (state.bertState === "pending") {
    parts.push("F3 …");
  } else if (bertSetup) {
    parts.push(SETUP_TEXT);
  }
  return `${icon} ${parts.length > 0 ? parts.join(" · ") : "RefScore"}`;
}

/** What the status item says for a file the server found no reference for (a click runs RefScore: Set Reference...). */
export const NO_REFERENCE_TEXT = "$(beaker) RefScore: no reference";

/** Hover text of the status item for a file with no reference: the server's words, then what a click does. */
export function noReferenceTooltip(message: string): string {
  return `${message}\n\nClick to choose the reference (RefScore: Set Reference...).`;
}

/** What the status item says while no server runs (it stopped, crashed for good or could not start): no stale scores. */
export const STOPPED_TEXT = "$(debug-disconnect) RefScore: stopped";

/** Hover text of the status item while no server runs; `reason` is what is known of why. */
export function stoppedTooltip(reason: string | undefined): string {
  const why = reason ? `RefScore's server is not running: ${reason}` : "RefScore's server is not running.";
  return `${why}\n\nScores are not updated until it runs again. Click to restart it (RefScore: Restart Server); RefScore: Show Server Log says what happened.`;
}

/** The last path segment of a URI, decoded, for display: control and bidi characters of the name as `<U+202E>` markers (as the server shows names). */
export function baseName(uri: string): string {
  const tail = uri.replace(/[?#].*$/, "").split("/").pop() ?? uri;
  try {
    return printable(decodeURIComponent(tail));
  } catch {
    return printable(tail);
  }
}

/** Hover text of the status item. */
export function statusTooltip(state: FileState, busy: boolean, bertSetup = false): string {
  const lines = [state.message];
  if (busy) {
    lines.push(state.kind === "summary" && state.bertState === "pending" ? "CodeBERTScore is being computed…" : "Scoring…");
  }
  if (bertSetup) {
    lines.push("CodeBERTScore needs a one-time set-up (PyTorch and the model, in an environment of its own; CodeBLEU works without it). " +
      "Click, or run RefScore: Set Up CodeBERTScore.");
  } else if (state.kind === "summary") {
    lines.push("Click for all components and what the reference has that this file lacks.");
  }
  return lines.join("\n\n");
}
