import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { managedEnv, parsePlan, type SetupEvent, setupArgs } from "../src/setupPlan";
import { lineReader, runSetup, SetupFailed } from "../src/stepRunner";

const dir = mkdtempSync(join(tmpdir(), "refscore-setup-run-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The repository's Python and server: the real `refscore setup`, as the extension runs it. */
const repo = resolve(__dirname, "..", "..", "..");
const python = process.env.REFSCORE_PYTHON ?? join(repo, ".venv", process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
/** pip alone: no configuration files, no PIP_* from the machine (a wheel folder there would answer). */
const isolated = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PIP_"))),
  PIP_CONFIG_FILE: process.platform === "win32" ? "nul" : "/dev/null",
  PYTHONPATH: join(repo, "server"),
};

function sink() {
  const log: string[] = [];
  const events: SetupEvent[] = [];
  return { log, events, io: { log: (l: string) => log.push(l), event: (e: SetupEvent) => events.push(e), onCancel: () => () => undefined, isCancelled: () => false } };
}

test("lines split across chunks are put back together", () => {
  const lines: string[] = [];
  const reader = lineReader((l) => lines.push(l));
  for (const chunk of ["torch", " ", "2.13.0", "\nrefscore 0.1", ".0\r\n", "tail"]) {
    reader.take(chunk);
  }
  reader.flush();
  assert.deepEqual(lines, ["torch 2.13.0", "refscore 0.1.0", "tail"]);
});

test("the real refscore setup: its plan, then a failing install's events and its one reason (offline, an empty wheel folder)", { skip: !existsSync(python) && `no ${python}` }, async () => {
  const wheels = join(dir, "wheels");
  mkdirSync(wheels);
  const env = managedEnv(join(dir, "storage"));
  const settings = { torch: "", torchIndexUrl: "", findLinks: wheels, pipArgs: ["--no-index"] };
  const plan = parsePlan(execFileSync(python, setupArgs(env, join(dir, "refscore.whl"), settings, true), { env: isolated, encoding: "utf8" }));
  assert.ok(plan !== undefined && plan.problems.length === 0, JSON.stringify(plan));
  assert.match(plan.question, /^Set up CodeBERTScore\? .*download about \d+ MB/);
  assert.ok(plan.details.some((line) => line.includes(env.dir)), plan.details.join("\n"));
  const { log, events, io } = sink();
  const failed = await runSetup(python, setupArgs(env, join(dir, "refscore.whl"), settings, false), isolated, io).then(
    () => assert.fail("the install should fail"), (error: unknown) => error);
  assert.ok(failed instanceof SetupFailed);
  assert.match(failed.message, /^installing torch==2\.13\.0 failed: No matching distribution found for torch==2\.13\.0 \(log: .*bert-env-setup\.log\)$/);
  assert.deepEqual(events.map((e) => e.event === "step" ? `step ${e.step}/${e.steps}` : e.event).filter((e) => e !== "progress"),
    ["plan", "step 1/5", "step 2/5", "failed"]);
  assert.ok(log.some((line) => line.includes('"event": "failed"')), "every line is in the log");
  assert.equal(existsSync(env.dir), false, "no half-made environment is left");
});

test("a missing program is one line", async () => {
  const { io } = sink();
  await assert.rejects(runSetup(join(dir, "no-python"), ["-m", "refscore", "setup"], process.env, io),
    /^SetupFailed: .*no-python could not run: spawn .*no-python ENOENT$/);
});
