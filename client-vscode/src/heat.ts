/** The heat map's buckets: which tokens get which background, relative to the weak-token threshold. */

import type { TokenScoresPayload } from "./protocol";
import { type LineSource, type PlainRange, toPlainRange } from "./ranges";
import { HEAT_BUCKET_WIDTH, HEAT_BUCKETS } from "./vocabulary.generated";

/** Weakest first; each has a contributed colour `refscore.heat.<bucket>Background` (the server's vocabulary). */
export const BUCKETS = HEAT_BUCKETS;
export type Bucket = (typeof BUCKETS)[number];

/** Width of each bucket in similarity units. */
export const BUCKET_WIDTH = HEAT_BUCKET_WIDTH;

/** A bucket edge rounded to 1e-6, so 0.45 - 0.15 is 0.3 and not 0.30000000000000004. */
function edge(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * The bucket of a token, given the weak-token threshold `t`: below `t - 0.15` weak, below `t`
 * low, below `t + 0.15` fair; anything higher (or not a number) is not drawn.
 */
export function bucketOf(similarity: number, threshold: number): Bucket | undefined {
  if (!Number.isFinite(similarity)) {
    return undefined;
  }
  if (similarity < edge(threshold - BUCKET_WIDTH)) {
    return "weak";
  }
  if (similarity < threshold) {
    return "low";
  }
  if (similarity < edge(threshold + BUCKET_WIDTH)) {
    return "fair";
  }
  return undefined;
}

export function colorId(bucket: Bucket): string {
  return `refscore.heat.${bucket}Background`;
}

export type HeatPlan = Record<Bucket, PlainRange[]>;

export function emptyPlan(): HeatPlan {
  return { weak: [], low: [], fair: [] };
}

/** The ranges to draw in each bucket for one payload on one document; the ranked differences are drawn as weak. */
export function planHeat(payload: TokenScoresPayload, threshold: number, doc: LineSource): HeatPlan {
  const plan = emptyPlan();
  for (const difference of payload.differences ?? []) {
    const range = toPlainRange(difference, doc);
    if (range !== undefined) {
      plan.weak.push(range);
    }
  }
  for (const token of payload.tokens) {
    const bucket = bucketOf(token.similarity, threshold);
    if (bucket === undefined) {
      continue;
    }
    const range = toPlainRange(token.range, doc);
    if (range !== undefined) {
      plan[bucket].push(range);
    }
  }
  return plan;
}

export function planCounts(plan: HeatPlan): Record<Bucket, number> {
  return { weak: plan.weak.length, low: plan.low.length, fair: plan.fair.length };
}
