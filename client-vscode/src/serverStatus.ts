/** What the server says it can score: its initialize result (`capabilities.experimental.refscore`) and `refscore/status`. No vscode import. */

import { isRecord } from "./protocol";

export const STATUS = "refscore/status";

/** `ready`, `setup` (no torch there: `refscore setup`), `unavailable` or `off`; kept as a string: the server may add states. */
export type BertAvailability = string;

export interface ServerStatus {
  codebertscore: BertAvailability;
  /** Why CodeBERTScore is not ready (one line), or undefined. */
  reason: string | undefined;
}

/** The status in a `refscore/status` payload, or undefined when it is not one. */
export function parseStatus(payload: unknown): ServerStatus | undefined {
  if (!isRecord(payload) || typeof payload.codebertscore !== "string") {
    return undefined;
  }
  return { codebertscore: payload.codebertscore, reason: typeof payload.reason === "string" ? payload.reason : undefined };
}

/** The status in an initialize result (`capabilities.experimental.refscore`). */
export function statusFromInitialize(result: unknown): ServerStatus | undefined {
  const capabilities = isRecord(result) ? result.capabilities : undefined;
  const experimental = isRecord(capabilities) ? capabilities.experimental : undefined;
  return parseStatus(isRecord(experimental) ? experimental.refscore : undefined);
}

/** CodeBERTScore is wanted and needs `refscore setup` (RefScore: Set Up CodeBERTScore) with this interpreter. */
export function needsSetup(status: ServerStatus | undefined): boolean {
  return status?.codebertscore === "setup";
}
