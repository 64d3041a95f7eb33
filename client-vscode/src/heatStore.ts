/** The latest token scores per document, with stale payloads refused. */

import type { TokenScoresPayload } from "./protocol";

export type Verdict = "accepted" | "stale";

export class HeatStore {
  private readonly payloads = new Map<string, TokenScoresPayload>();

  /**
   * Keeps `payload` unless it is stale: older than the document's current version (the text it
   * describes is gone) or older than a payload already kept for the document (out of order).
   * `currentVersion` is undefined when the document is not open here.
   */
  accept(payload: TokenScoresPayload, currentVersion: number | undefined): Verdict {
    if (currentVersion !== undefined && payload.version < currentVersion) {
      return "stale";
    }
    const kept = this.payloads.get(payload.uri);
    if (kept !== undefined && payload.version < kept.version) {
      return "stale";
    }
    this.payloads.set(payload.uri, payload);
    return "accepted";
  }

  /** The payload to draw on a document at `version`: only one computed for exactly that text. */
  drawable(uri: string, version: number): TokenScoresPayload | undefined {
    const kept = this.payloads.get(uri);
    return kept !== undefined && kept.version === version ? kept : undefined;
  }

  latest(uri: string): TokenScoresPayload | undefined {
    return this.payloads.get(uri);
  }

  forget(uri: string): void {
    this.payloads.delete(uri);
  }

  clear(): void {
    this.payloads.clear();
  }
}
