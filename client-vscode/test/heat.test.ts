import assert from "node:assert/strict";
import { test } from "node:test";
import { BUCKETS, bucketOf, colorId, planCounts, planHeat } from "../src/heat";
import { isTokenScoresPayload, type TokenScoresPayload } from "../src/protocol";
import { textLines } from "../src/ranges";

function token(line: number, start: number, end: number, similarity: number) {
  return { range: { start: { line, character: start }, end: { line, character: end } }, similarity };
}

test("buckets are relative to the weak-token threshold", () => {
  assert.equal(bucketOf(0.10, 0.45), "weak");
  assert.equal(bucketOf(0.2999, 0.45), "weak");
  assert.equal(bucketOf(0.30, 0.45), "low");
  assert.equal(bucketOf(0.4499, 0.45), "low");
  assert.equal(bucketOf(0.45, 0.45), "fair");
  assert.equal(bucketOf(0.5999, 0.45), "fair");
  assert.equal(bucketOf(0.60, 0.45), undefined);
  assert.equal(bucketOf(0.95, 0.45), undefined);
  // a higher threshold moves every edge
  assert.equal(bucketOf(0.60, 0.8), "weak");
  assert.equal(bucketOf(Number.NaN, 0.45), undefined);
});

test("every bucket has its contributed colour id", () => {
  assert.deepEqual(BUCKETS.map(colorId), ["refscore.heat.weakBackground", "refscore.heat.lowBackground", "refscore.heat.fairBackground"]);
});

test("a plan sorts tokens into buckets and drops ones outside the text", () => {
  const doc = textLines("def f(x):\n    return x + 1\n");
  const payload: TokenScoresPayload = {
    uri: "file:///c.py",
    version: 3,
    tokens: [
      token(0, 0, 3, 0.9), // strong: not drawn
      token(0, 4, 5, 0.2), // weak
      token(1, 4, 10, 0.35), // low
      token(1, 11, 12, 0.5), // fair
      token(7, 0, 4, 0.1), // beyond the last line: dropped
    ],
  };
  const plan = planHeat(payload, 0.45, doc);
  assert.deepEqual(planCounts(plan), { weak: 1, low: 1, fair: 1 });
  assert.deepEqual(plan.weak[0], { startLine: 0, startCharacter: 4, endLine: 0, endCharacter: 5 });
  assert.deepEqual(plan.low[0], { startLine: 1, startCharacter: 4, endLine: 1, endCharacter: 10 });
});

test("the ranked differences are drawn as weak, so the real slip gets heat even where its tokens look alike", () => {
  const doc = textLines("total = 0\nfor value in values:\n    total = value\n");
  const slip = { start: { line: 2, character: 10 }, end: { line: 2, character: 11 } }; // the `=` of `total = value`
  const payload: TokenScoresPayload = { uri: "file:///t.py", version: 2, tokens: [token(2, 10, 11, 0.95)], differences: [slip] };
  const plan = planHeat(payload, 0.45, doc);
  assert.deepEqual(planCounts(plan), { weak: 1, low: 0, fair: 0 });
  assert.deepEqual(plan.weak[0], { startLine: 2, startCharacter: 10, endLine: 2, endCharacter: 11 });
  assert.ok(isTokenScoresPayload(payload));
  assert.ok(!isTokenScoresPayload({ ...payload, differences: [{ start: 1 }] }));
});
