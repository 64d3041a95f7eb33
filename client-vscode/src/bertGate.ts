/** Whether CodeBERTScore can run with the chosen interpreter, and what the server is told when it cannot. */

import type { Facts } from "./interpreter";
import { isRecord } from "./protocol";

/** The user wants CodeBERTScore: it is among `refscore.metrics` and the server may use the daemon. */
export function bertWanted(metrics: readonly string[] | undefined, serverArgs: readonly string[]): boolean {
  return (metrics ?? ["codebleu", "codebertscore"]).includes("codebertscore") && !serverArgs.includes("--no-daemon");
}

/** CodeBERTScore needs RefScore: Set Up CodeBERTScore with this interpreter (no torch or transformers). */
export function needsBertSetup(facts: Facts): boolean {
  return !facts.torch || !facts.transformers;
}

/** The `refscore` section as the server gets it while CodeBERTScore is not set up: without that metric. */
export function withoutBert(section: unknown): unknown {
  if (!isRecord(section)) {
    return section;
  }
  const metrics = Array.isArray(section.metrics) ? section.metrics : ["codebleu", "codebertscore"];
  return { ...section, metrics: metrics.filter((m) => m !== "codebertscore") };
}
