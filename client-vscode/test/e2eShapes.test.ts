import assert from "node:assert/strict";
import { test } from "node:test";
import { lensShows, scoreParts, statusShows } from "../scripts/e2e-shapes.cjs";
import { statusText } from "../src/summary";

test("the e2e status check takes a new leading number and refuses a missing one", () => {
  assert.ok(statusShows("$(beaker) CodeBLEU 0.34 · F3 0.81", ["CodeBLEU", "F3"]));
  assert.ok(statusShows("$(beaker) RefScore 0.33 · CodeBLEU 0.34 · F3 0.81", ["CodeBLEU", "F3"]));
  assert.ok(!statusShows("$(beaker) RefScore 0.33 · CodeBLEU 0.34", ["CodeBLEU", "F3"]));
  assert.ok(!statusShows("$(beaker) RefScore n/a · CodeBLEU 0.34 · F3 0.81", ["CodeBLEU", "F3"]));
  assert.ok(!statusShows("$(beaker) CodeBLEU · F3 0.81", ["CodeBLEU", "F3"]));
  assert.ok(!statusShows("$(sync~spin) CodeBLEU 0.34 · F3 0.81", ["CodeBLEU", "F3"]));
  assert.ok(statusShows("$(beaker) CodeBLEU 0.34 · CodeBERTScore: set up", ["CodeBLEU"], ["CodeBERTScore: set up"]));
  assert.ok(!statusShows("$(beaker) CodeBLEU 0.34", ["CodeBLEU"], ["CodeBERTScore: set up"]));
  assert.deepEqual(scoreParts("RefScore 0.33 · F3 …"), [["RefScore", "0.33"], ["F3", "…"]]);
});

test("the e2e status check accepts what the client's statusText writes", () => {
  const state = {
    kind: "summary" as const, version: 1, references: [], referenceSource: "convention", bertState: "done", message: "m",
    codebleu: { score: 0.34, components: {} },
    codebertscore: { precision: 0.8, recall: 0.8, f1: 0.8, f3: 0.81 },
    refscore: { score: 0.33, signature: undefined, strongest: [] },
  };
  assert.ok(statusShows(statusText(state, false), ["CodeBLEU", "F3"]));
  assert.ok(statusShows(statusText({ ...state, refscore: undefined }, false), ["CodeBLEU", "F3"]));
  assert.ok(!statusShows(statusText({ ...state, codebertscore: undefined, bertState: "off" }, false), ["CodeBLEU", "F3"]));
  assert.ok(statusShows(statusText({ ...state, codebertscore: undefined, refscore: undefined, bertState: "off" }, false, true),
    ["CodeBLEU"], ["CodeBERTScore: set up"]));
});

test("the e2e lens check reads the labels between the prefix and the function", () => {
  assert.ok(lensShows("RefScore: CodeBLEU 0.50 · F3 0.70 vs add (same name)", ["CodeBLEU", "F3"]));
  assert.ok(lensShows("RefScore: RefScore 0.41 · CodeBLEU 0.50 · F3 0.70 vs add (same name)", ["CodeBLEU", "F3"]));
  assert.ok(!lensShows("RefScore: CodeBLEU 0.50 vs add (same name)", ["CodeBLEU", "F3"]));
  assert.ok(lensShows("RefScore: CodeBLEU 0.50 vs add (same name)", ["CodeBLEU"]));
  assert.ok(!lensShows("RefScore: CodeBLEU 0.50 vs add (alignment)", ["CodeBLEU"]));
});
