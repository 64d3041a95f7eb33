import assert from "node:assert/strict";
import { test } from "node:test";
import { needsSetup, parseStatus, statusFromInitialize } from "../src/serverStatus";

const setup = { codebleu: "ready", codebertscore: "setup", reason: "CodeBERTScore is not set up: torch and transformers not installed in /usr/bin/python3; run `refscore setup`" };

test("the server's word decides: set-up is offered only when it says setup", () => {
  assert.equal(needsSetup(parseStatus(setup)), true);
  for (const state of ["ready", "off", "unavailable"]) {
    assert.equal(needsSetup(parseStatus({ ...setup, codebertscore: state })), false, state);
  }
  assert.equal(needsSetup(undefined), false, "a server that says nothing is not second-guessed");
  assert.equal(parseStatus({ reason: "x" }), undefined);
  assert.equal(parseStatus(null), undefined);
});

test("the initialize result carries the same status under capabilities.experimental.refscore", () => {
  assert.deepEqual(statusFromInitialize({ capabilities: { experimental: { refscore: setup } } }), { codebertscore: "setup", reason: setup.reason });
  assert.equal(statusFromInitialize({ capabilities: {} }), undefined);
  assert.equal(statusFromInitialize(undefined), undefined);
});
