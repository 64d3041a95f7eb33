import assert from "node:assert/strict";
import { test } from "node:test";
import { missingEntries, scoreEntries } from "../src/items";
import type { MissingItem } from "../src/protocol";
import { fileState, type Summary } from "../src/summary";

const REF = "file:///w/reference/fizz.py";
const missing: MissingItem[] = [
  { kind: "syntax_match", text: "for i in range(1, 101):\n    print(i)", uri: REF, range: { start: { line: 3, character: 4 }, end: { line: 4, character: 12 } } },
  { kind: "dataflow_match", text: "i -> print", uri: REF, range: { start: { line: 4, character: 8 }, end: { line: 4, character: 13 } } },
  { kind: "codebertscore_recall", text: "Buzz", uri: REF, range: { start: { line: 7, character: 15 }, end: { line: 7, character: 19 } }, similarity: 0.31 },
];

function summary(): Summary {
  const state = fileState([
    {
      code: "refscore.summary",
      message: "m",
      data: {
        version: 1,
        references: [REF],
        referenceSource: "convention",
        codebertscoreState: "done",
        codebleu: { score: 0.5, components: { ngram_match: 0.4, weighted_ngram_match: 0.45, syntax_match: 0.6, dataflow_match: 0.7 } },
        codebertscore: { precision: 0.8, recall: 0.7, f1: 0.75, f3: 0.71, model: "m", layer: 6 },
      },
    },
  ]);
  assert.ok(state?.kind === "summary");
  return state;
}

test("missing entries show one line of text, the kind and where in the reference", () => {
  const entries = missingEntries(missing);
  assert.equal(entries.length, 3);
  assert.equal(entries[0].label, "for i in range(1, 101): print(i)");
  assert.equal(entries[0].description, "syntax");
  assert.equal(entries[0].detail, "fizz.py:4");
  assert.deepEqual(entries[0].target, { uri: REF, line: 3, character: 4 });
  assert.match(entries[2].description ?? "", /similarity 0\.31/);
});

test("the score panel lists every component and jumps to what each one misses", () => {
  const entries = scoreEntries(summary(), missing);
  const byLabel = new Map(entries.map((e) => [e.label, e]));
  for (const label of ["CodeBLEU 0.50", "n-gram 0.40", "weighted n-gram 0.45", "syntax 0.60", "dataflow 0.70", "F3 0.71", "F1 0.75", "precision 0.80", "recall 0.70"]) {
    assert.ok(byLabel.has(label), `missing ${label}`);
  }
  assert.deepEqual(byLabel.get("syntax 0.60")?.target, { uri: REF, line: 3, character: 4 });
  assert.equal(byLabel.get("syntax 0.60")?.description, "1 missing");
  assert.deepEqual(byLabel.get("recall 0.70")?.target, { uri: REF, line: 7, character: 15 });
  // nothing of its kind is missing: the component jumps to the reference's top
  assert.deepEqual(byLabel.get("n-gram 0.40")?.target, { uri: REF, line: 0, character: 0 });
  const separators = entries.filter((e) => e.separator).map((e) => e.label);
  assert.deepEqual(separators, ["CodeBLEU", "CodeBERTScore", "Missing from this file (3)"]);
  // the missing list closes the panel
  assert.deepEqual(entries.slice(-3).map((e) => e.target?.line), [3, 4, 7]);
});

test("without CodeBERTScore the panel says its state", () => {
  const s = { ...summary(), codebertscore: undefined, bertState: "unavailable" };
  assert.ok(scoreEntries(s, []).some((e) => e.label === "CodeBERTScore unavailable"));
  const setup = scoreEntries({ ...s, bertState: "setup" }, []).find((e) => e.label === "CodeBERTScore not set up");
  assert.equal(setup?.description, "RefScore: Set Up CodeBERTScore");
});

test("the panel opens with the combined number and what moved it most, when there is one", () => {
  const s: Summary = { ...summary(), refscore: { score: 0.66, signature: "refscore|fit:x", strongest: [{ text: "chrF++ 0.400", contribution: -0.2 }] } };
  const entries = scoreEntries(s, []);
  assert.deepEqual(entries.slice(0, 3).map((e) => e.label), ["RefScore (combined)", "RefScore 0.66", "chrF++ 0.400"]);
  assert.equal(entries[2].description, "lowered it"); // plain words: no logits
  assert.equal(scoreEntries(summary(), [])[0].label, "CodeBLEU");
});

test("outside its fit's data the panel says why the combined number is not shown", () => {
  const why = "the reference has 1,843 tokens, and the number was fitted on references of 1 to 197 tokens (single functions)";
  const entries = scoreEntries({ ...summary(), refscoreWithheld: why }, []);
  assert.deepEqual(entries.slice(0, 2).map((e) => e.label), ["RefScore (combined)", "RefScore not shown"]);
  assert.equal(entries[1].detail, why);
  const skipped = scoreEntries({ ...summary(), codebertscore: undefined, bertState: "skipped", bertNote: "CodeBERTScore skipped: too long" }, []);
  assert.equal(skipped.find((e) => e.label === "CodeBERTScore skipped")?.detail, "CodeBERTScore skipped: too long");
});

test("missing entries show control and bidi characters of the code as visible markers", () => {
  const raw = "s = \"\u202e\u2066x\u2069\u202c\"\x1b[2J\x00\x85\x7f";
  const item: MissingItem = { kind: "ngram_match", text: raw, uri: REF, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } };
  const [entry] = missingEntries([item]);
  assert.equal(entry.label, "s = \"<U+202E><U+2066>x<U+2069><U+202C>\"<U+001B>[2J<U+0000><U+0085><U+007F>");
  assert.equal(item.text, raw); // the server's data stays as it is
  // newlines and tabs still fold into one line (they are layout, not hidden controls)
  assert.equal(missingEntries([{ ...item, text: "a\n\tb\r\nc" }])[0].label, "a b c");
});
