import assert from "node:assert/strict";
import { test } from "node:test";
import { describeScoreText } from "../src/scoreText";

test("a scored selection names the reference region it was compared with", () => {
  const view = describeScoreText({
    codebleu: { score: 0.712, signature: "s", components: {} },
    codebertscore: { precision: 0.9, recall: 0.8, f1: 0.85, f3: 0.81 },
    region: { uri: "file:///w/fizz.ref.py", function: "fizzbuzz", range: { start: { line: 2, character: 0 }, end: { line: 9, character: 0 } } },
    errors: [],
  });
  assert.equal(view.failed, false);
  assert.equal(view.message, "Selection: CodeBLEU 0.71 · F3 0.81 · F1 0.85 vs function fizzbuzz (fizz.ref.py:3)");
  assert.deepEqual(view.region, { uri: "file:///w/fizz.ref.py", line: 2, character: 0 });
});

test("errors from the server are shown, and an {error} answer fails", () => {
  const partial = describeScoreText({ codebleu: { score: 0.5 }, codebertscore: null, region: null, errors: ["CodeBERTScore is unavailable: no daemon"] });
  assert.equal(partial.message, "Selection: CodeBLEU 0.50 (CodeBERTScore is unavailable: no daemon)");
  const failed = describeScoreText({ error: "no reference is known for this document" });
  assert.equal(failed.failed, true);
  assert.equal(failed.message, "RefScore: no reference is known for this document");
  assert.equal(describeScoreText(null).failed, true);
});

test("the selection's message shows control and bidi characters of a reference function's name as markers", () => {
  const view = describeScoreText({
    codebleu: { score: 0.5 }, errors: ["note\u001b[31m"],
    region: { uri: "file:///w/r.py", function: "f\u202ex", range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } } },
  });
  assert.equal(view.message, "Selection: CodeBLEU 0.50 vs function f<U+202E>x (r.py:2) (note<U+001B>[31m)");
});

test("behaviour leads the selection's message, then the first input or difference where it departs", () => {
  const region = { uri: "file:///w/stats.ref.py", function: "average", range: { start: { line: 0, character: 0 }, end: { line: 6, character: 0 } } };
  const buggy = describeScoreText({
    codebleu: { score: 0.32 }, region, errors: [],
    behaviour: { agreed: 2, inputs: 40, difference: "for `average_ai([1, 2, 3])` this returns `1.0`, the reference returns `2.0` (differs on 38 of 40 inputs)" },
    differences: [{ reason: "`total = len` differs", line: 1, code: "= len" }],
  });
  assert.equal(buggy.message, "Selection: behaves alike on 2/40 inputs · CodeBLEU 0.32 vs function average (stats.ref.py:1). "
    + "for `average_ai([1, 2, 3])` this returns `1.0`, the reference returns `2.0` (differs on 38 of 40 inputs)");
  const unrun = describeScoreText({ codebleu: { score: 0.5 }, region, errors: [], behaviour: null,
    differences: [{ reason: "`x` has no counterpart in the reference", line: 2, code: "x" }] });
  assert.equal(unrun.message, "Selection: CodeBLEU 0.50 vs function average (stats.ref.py:1). line 3: `x` has no counterpart in the reference");
});
