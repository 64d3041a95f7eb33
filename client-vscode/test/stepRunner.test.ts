import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { managedEnv, setupPlan } from "../src/setupPlan";
import { lineReader, runStep, StepFailed, stepEnv } from "../src/stepRunner";

const dir = mkdtempSync(join(tmpdir(), "refscore-steps-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const log: string[] = [];
  const progress: string[] = [];
  return { log, progress, io: { log: (l: string) => log.push(l), report: (p: string) => progress.push(p), onCancel: () => () => undefined, isCancelled: () => false } };
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

test("the step's environment drops PYTHONPATH (the bundled libraries) and asks pip for no input", () => {
  const env = stepEnv({ PATH: "/bin", PYTHONPATH: "/ext/bundled/libs", PYTHONHOME: "/x" });
  assert.deepEqual(env, { PATH: "/bin", PIP_NO_INPUT: "1" });
});

test("a step's output goes to the log line by line; success resolves", async () => {
  const { log, io: sink } = io();
  await runStep({ title: "say", command: "sh", args: ["-c", "printf 'one\\ntw'; sleep 0.1; printf 'o\\n'; echo err >&2"] }, sink);
  assert.deepEqual(log.slice(1).sort(), ["err", "one", "two"]);
});

test("a pip install that cannot find torch fails with pip's one reason (a real pip, an empty wheel folder, no index)", async (t) => {
  const python = process.platform === "win32" ? "python" : "python3";
  const plan = setupPlan({
    platform: "linux", gpu: false, basePython: python, env: managedEnv(dir, "linux"), wheel: "/nonexistent.whl",
    torch: "torch==2.13.0", torchIndexUrl: "", findLinks: dir, pipArgs: ["--no-index"],
  });
  const torch = { ...plan.steps[1], command: python };
  const { log, io: sink } = io();
  // this pip alone: no configuration files, no PIP_* from the machine (a wheel folder there would answer)
  const isolated = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PIP_")));
  try {
    await runStep(torch, sink, stepEnv({ ...isolated, PIP_CONFIG_FILE: process.platform === "win32" ? "nul" : "/dev/null" }));
    assert.fail("the install should fail");
  } catch (error) {
    if (!(error instanceof StepFailed)) {
      throw error;
    }
    if (/No module named pip|not found/.test(error.message)) {
      t.skip(`no pip here: ${error.message}`);
      return;
    }
    assert.equal(error.message, "installing torch==2.13.0 failed: No matching distribution found for torch==2.13.0");
    assert.ok(log.some((l) => l.startsWith("ERROR:")), "pip's output is in the log");
  }
});

test("a missing program is one line naming the step", async () => {
  const { io: sink } = io();
  await assert.rejects(runStep({ title: "creating the environment", command: join(dir, "no-python"), args: [] }, sink),
    /^StepFailed: creating the environment failed: spawn .*no-python ENOENT$/);
});
