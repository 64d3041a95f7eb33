import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { isReady, managedEnv, parseEvent, parsePlan, setupArgs } from "../src/setupPlan";

const dir = mkdtempSync(join(tmpdir(), "refscore-plan-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const none = { torch: "", torchIndexUrl: "", findLinks: "", pipArgs: [] as string[] };

test("the environment lives in global storage; ready only once refscore setup wrote its marker", () => {
  const env = managedEnv(dir, "linux");
  assert.equal(env.python, join(dir, "bert-env", "bin", "python"));
  assert.equal(env.marker, join(dir, "bert-env", "refscore-env.json"));
  assert.equal(managedEnv("C:\\s", "win32").python.endsWith(join("Scripts", "python.exe")), true);
  assert.equal(isReady(env), false);
  mkdirSync(dirname(env.python), { recursive: true });
  writeFileSync(env.python, "");
  assert.equal(isReady(env), false);
  writeFileSync(env.marker, "{}");
  assert.equal(isReady(env), true);
});

test("the command line: refscore setup with the environment, the bundled wheel and only the settings that are set", () => {
  const env = managedEnv("/g", "linux");
  assert.deepEqual(setupArgs(env, "/ext/refscore.whl", none, true),
    ["-m", "refscore", "setup", "--json", "--env", "/g/bert-env", "--from", "/ext/refscore.whl", "--plan"]);
  const set = { torch: " torch==2.13.0 ", torchIndexUrl: "https://example.test/cu126", findLinks: "/wheels", pipArgs: ["--no-index", "--proxy", "http://p:3128"] };
  assert.deepEqual(setupArgs(env, "/ext/refscore.whl", set, false).slice(8), [
    "--torch=torch==2.13.0", "--torch-index-url=https://example.test/cu126", "--find-links=/wheels",
    "--pip-arg=--no-index", "--pip-arg=--proxy", "--pip-arg=http://p:3128"]);
});

test("the plan and the events are read as the command prints them; anything else is not one", () => {
  const plan = parsePlan(JSON.stringify({ question: "Set up CodeBERTScore? ... about 380 MB", details: ["Environment: /g/bert-env.", 3], problems: [], log: "/g/bert-env-setup.log" }));
  assert.deepEqual(plan, { question: "Set up CodeBERTScore? ... about 380 MB", details: ["Environment: /g/bert-env."], problems: [], log: "/g/bert-env-setup.log" });
  assert.equal(parsePlan("refscore: internal error"), undefined);
  assert.equal(parsePlan("{}"), undefined);
  assert.deepEqual(parseEvent('{"event": "step", "step": 2, "steps": 5, "title": "installing torch==2.13.0"}'),
    { event: "step", step: 2, steps: 5, title: "installing torch==2.13.0" });
  assert.deepEqual(parseEvent('{"event": "failed", "reason": "cancelled", "log": null}'), { event: "failed", reason: "cancelled", log: null });
  assert.equal(parseEvent('{"event": "later"}'), undefined);
  assert.equal(parseEvent("Collecting torch"), undefined);
});
