import assert from "node:assert/strict";
import { test } from "node:test";
import { bertWanted, needsBertSetup, withoutBert } from "../src/bertGate";

const facts = { python: "3.11.7", refscore: "0.1.0", torch: true, transformers: true, venv: true };

test("set-up is needed when torch or transformers is missing", () => {
  assert.equal(needsBertSetup(facts), false);
  assert.equal(needsBertSetup({ ...facts, torch: false }), true);
  assert.equal(needsBertSetup({ ...facts, transformers: false }), true);
});

test("CodeBERTScore is wanted unless the metrics leave it out or the server runs without the daemon", () => {
  assert.equal(bertWanted(undefined, []), true);
  assert.equal(bertWanted(["codebleu"], []), false);
  assert.equal(bertWanted(["codebleu", "codebertscore"], ["--no-daemon"]), false);
});

test("without the runtime the server is asked for CodeBLEU only; other settings pass unchanged", () => {
  assert.deepEqual(withoutBert({ metrics: ["codebleu", "codebertscore"], debounceMs: 100 }), { metrics: ["codebleu"], debounceMs: 100 });
  assert.deepEqual(withoutBert({ debounceMs: 100 }), { metrics: ["codebleu"], debounceMs: 100 });
  assert.equal(withoutBert(null), null);
});
