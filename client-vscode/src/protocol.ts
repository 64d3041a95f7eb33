/** Shapes of what the RefScore server sends (docs/editor.md), with guards for untrusted JSON. */

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface TokenScore {
  range: LspRange;
  similarity: number;
}

/** The `refscore/tokenScores` notification. */
export interface TokenScoresPayload {
  uri: string;
  version: number;
  tokens: TokenScore[];
  /** The ranked differences from the reference (drawn as weak: the real slip gets heat even where its tokens resemble the reference). */
  differences?: LspRange[];
}

/** One entry of the `refscore.missingFromReference` command's result. */
export interface MissingItem {
  kind: string;
  text: string;
  uri: string;
  range: LspRange;
  similarity?: number;
}

/** The `refscore/documentStatus` notification: what diagnostics cannot say (`noReference`). */
export interface DocumentStatus {
  uri: string;
  version: number | undefined;
  state: string;
  message: string;
}

/** A `refscore/documentStatus` payload, or undefined when it is not one. */
export function parseDocumentStatus(value: unknown): DocumentStatus | undefined {
  if (!isRecord(value) || typeof value.uri !== "string" || typeof value.state !== "string" || typeof value.message !== "string") {
    return undefined;
  }
  return { uri: value.uri, version: typeof value.version === "number" ? value.version : undefined, state: value.state, message: value.message };
}

export const TOKEN_SCORES = "refscore/tokenScores";
export const DOCUMENT_STATUS = "refscore/documentStatus";
export const SCORE_TEXT = "refscore/scoreText";
export const SET_REFERENCE = "refscore.setReference";
export const MISSING = "refscore.missingFromReference";
export const SUMMARY_CODE = "refscore.summary";
export const WEAK_TOKEN_CODE = "refscore.weak-token";
export const PROBLEM_CODE = "refscore.problem";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNatural(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

export function isPosition(value: unknown): value is LspPosition {
  return isRecord(value) && isNatural(value.line) && isNatural(value.character);
}

export function isRange(value: unknown): value is LspRange {
  return isRecord(value) && isPosition(value.start) && isPosition(value.end);
}

export function isTokenScoresPayload(value: unknown): value is TokenScoresPayload {
  return (
    isRecord(value) &&
    typeof value.uri === "string" &&
    typeof value.version === "number" &&
    Array.isArray(value.tokens) &&
    value.tokens.every((t) => isRecord(t) && isRange(t.range) && typeof t.similarity === "number") &&
    (value.differences === undefined || (Array.isArray(value.differences) && value.differences.every(isRange)))
  );
}

export function isMissingItem(value: unknown): value is MissingItem {
  return (
    isRecord(value) &&
    typeof value.kind === "string" &&
    typeof value.text === "string" &&
    typeof value.uri === "string" &&
    isRange(value.range)
  );
}
