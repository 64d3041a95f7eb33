import assert from "node:assert/strict";
import { test } from "node:test";
import { describeChoices, describeRanking } from "../src/compareView";

const region = { uri: "file:///w/stats.ref.py", function: "average", range: { start: { line: 0, character: 0 }, end: { line: 6, character: 0 } } };

test("a ranking lists the alternatives best first with their verdicts and differences", () => {
  const ranking = describeRanking({
    ranked: [
      { label: "clipboard", index: 1, rank: 1, region, codebleu: 0.42, behaviour: { agreed: 40, inputs: 40, difference: null }, differences: [] },
      {
        label: "selection", index: 0, rank: 2, region, codebleu: 0.47,
        behaviour: { agreed: 2, inputs: 40, difference: "for `average_ai([1, 2, 3])` this returns `1.0`, the reference returns `2.0` (differs on 38 of 40 inputs)" },
        differences: [{ reason: "`total = len` differs", line: 1, code: "= len" }],
      },
    ],
  });
  assert.equal(ranking.error, undefined);
  assert.deepEqual(ranking.items.map((i) => i.label), ["1. clipboard", "2. selection"]);
  assert.equal(ranking.items[0].description, "behaves alike on 40/40 inputs · CodeBLEU 0.42 vs average (stats.ref.py:1)");
  assert.equal(ranking.items[0].detail, "no differences found");
  assert.match(ranking.items[1].detail, /^for `average_ai\(\[1, 2, 3\]\)` this returns `1\.0`.* · line 2: `total = len` differs$/);
  assert.equal(ranking.items[1].region?.function, "average");
});

test("behaviour not run is said, and an {error} answer is shown as one message", () => {
  const ranking = describeRanking({ ranked: [{ label: "a", rank: 1, region: null, codebleu: null, behaviour: { notRun: "no sandbox" }, differences: [] }] });
  assert.equal(ranking.items[0].description, "behaviour not run (no sandbox) no reference function");
  assert.equal(describeRanking({ error: "ranking needs two or more alternatives" }).error, "RefScore: ranking needs two or more alternatives");
  assert.equal(describeRanking(null).error, "RefScore: the server gave no answer.");
});

test("reference choices say why each may be the one", () => {
  const choices = describeChoices({
    function: "average_ai",
    choices: [
      { function: "average", uri: "file:///w/stats.ref.py", signature: true, sharedWord: true, codebleu: 0.3 },
      { function: "col\u202emeans", uri: "file:///w/stats.ref.py", signature: false, sharedWord: false, codebleu: 0.1 },
    ],
  });
  assert.equal(choices.function, "average_ai");
  assert.equal(choices.items[0].description, "stats.ref.py · same parameters · similar name · CodeBLEU 0.30");
  assert.equal(choices.items[1].name, "col\u202emeans");
  assert.notEqual(choices.items[1].label, "col\u202emeans"); // a bidi control is shown as a marker
});
