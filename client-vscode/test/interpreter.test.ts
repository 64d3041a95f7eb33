import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { candidates, failureMessage, findInterpreter, judge, PROBE_CODE, probeWith, serverEnv } from "../src/interpreter";

const dir = mkdtempSync(join(tmpdir(), "refscore-interp-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in "python" (a shell script) that answers the probe the way we choose. */
function fakePython(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

const facts = (extra: Record<string, unknown>) => JSON.stringify({ python: "3.11.7", refscore: "0.1.0", ...extra });

test("the setting wins alone; otherwise the CodeBERTScore environment, the Python extension, python3, python", () => {
  assert.deepEqual(candidates({ setting: "/opt/venv/bin/python", managed: "/g/bert-env/bin/python", pythonExtension: "/ext/python", trusted: true }),
    [{ command: "/opt/venv/bin/python", source: "setting refscore.interpreter" }]);
  assert.deepEqual(candidates({ setting: "  ", managed: "/g/bert-env/bin/python", pythonExtension: "/ext/python", trusted: true, platform: "linux" }), [
    { command: "/g/bert-env/bin/python", source: "CodeBERTScore environment" },
    { command: "/ext/python", source: "Python extension" },
    { command: "python3", source: "PATH" },
    { command: "python", source: "PATH" },
  ]);
  assert.deepEqual(candidates({ trusted: true, platform: "win32" }).map((c) => c.command), ["python", "python3"]);
});

test("an untrusted workspace never runs the Python extension's interpreter (it may be a workspace venv)", () => {
  const list = candidates({ pythonExtension: "/workspace/.venv/bin/python", trusted: false, platform: "linux" });
  assert.deepEqual(list.map((c) => c.source), ["PATH", "PATH"]);
});

test("the bundled libraries go first on PYTHONPATH; the environment's own otherwise", () => {
  assert.equal(serverEnv({ PYTHONPATH: "/mine" }, "/ext/bundled/libs", ":").PYTHONPATH, "/ext/bundled/libs:/mine");
  assert.equal(serverEnv({}, "/ext/bundled/libs", ";").PYTHONPATH, "/ext/bundled/libs");
  assert.equal(serverEnv({ PYTHONPATH: "/mine" }, undefined).PYTHONPATH, "/mine");
});

test("judging a probe: Python 3.10+ and refscore importable (what it can score, the server says)", () => {
  const ok = judge(facts({}), "useBundled");
  assert.ok(ok.ok && ok.facts.refscore === "0.1.0" && !("torch" in ok.facts));
  assert.deepEqual(judge(facts({ python: "3.9.18" }), "useBundled"), { ok: false, reason: "Python 3.9.18 is too old (RefScore needs 3.10 or newer)" });
  assert.deepEqual(judge(facts({ python: "2.7.18", refscore: null }), "fromEnvironment"), { ok: false, reason: "Python 2.7.18 is too old (RefScore needs 3.10 or newer)" });
  assert.deepEqual(judge(facts({ refscore: null, importError: "ModuleNotFoundError: No module named 'refscore'" }), "fromEnvironment"),
    { ok: false, reason: "the refscore package is not installed there" });
  assert.deepEqual(judge(facts({ refscore: null, importError: "ModuleNotFoundError: No module named 'tree_sitter'" }), "fromEnvironment"),
    { ok: false, reason: "refscore does not load there (ModuleNotFoundError: No module named 'tree_sitter'; reinstall it with its dependencies)" });
  const broken = judge(facts({ refscore: null, importError: "ImportError: tree_sitter._binding" }), "useBundled");
  assert.deepEqual(broken, { ok: false, reason: "the bundled server does not load there (ImportError: tree_sitter._binding)" });
  assert.deepEqual(judge("hello", "useBundled"), { ok: false, reason: "unexpected output: hello" });
});

test("a probe runs the probe code with the given environment and tells why it failed", async () => {
  const probe = probeWith(10_000, { ...process.env, MARK: "bundled" }, "useBundled");
  const good = fakePython("good", `[ "$1" = "-c" ] && [ "$MARK" = "bundled" ] && echo '${facts({})}' || exit 3`);
  const found = await probe(good);
  assert.ok(found.ok && found.facts.python === "3.11.7");
  assert.deepEqual(await probe(join(dir, "absent")), { ok: false, reason: "not found" });
  const crash = fakePython("crash", 'echo "Traceback: boom" >&2; exit 1');
  assert.deepEqual(await probe(crash), { ok: false, reason: "Traceback: boom" });
  const slow = fakePython("slow", "sleep 5");
  assert.deepEqual(await probeWith(300, process.env, "useBundled")(slow), { ok: false, reason: "timed out" });
});

test("the probe code runs in a real Python and reports what it has", async (t) => {
  const probe = probeWith(30_000, process.env, "fromEnvironment");
  for (const python of ["python3", "python"]) {
    const result = await probe(python);
    if (!result.ok && result.reason === "not found") {
      continue;
    }
    // no refscore on this Python (a plain PATH python): a clear reason, not a crash
    assert.ok(result.ok || /refscore|too old|bundled/.test(result.reason), JSON.stringify(result));
    return;
  }
  t.skip("no python on PATH");
  assert.ok(PROBE_CODE.includes("find_spec"));
});

test("the first working candidate is used; failures before it are reported", async () => {
  const good = fakePython("good2", `echo '${facts({})}'`);
  const bad = fakePython("bad2", "exit 1");
  const found = await findInterpreter(
    [
      { command: bad, source: "Python extension" },
      { command: good, source: "PATH" },
    ],
    probeWith(10_000, process.env, "useBundled"),
  );
  assert.equal(found.found?.candidate.command, good);
  assert.equal(found.failures.length, 1);
  const none = await findInterpreter([{ command: join(dir, "nope"), source: "setting refscore.interpreter" }], probeWith(10_000, process.env, "useBundled"));
  assert.equal(none.found, undefined);
  const bundled = failureMessage(none.failures, "useBundled");
  assert.match(bundled, /^RefScore cannot start its server: no Python 3\.10 or newer was found/);
  assert.match(bundled, /nope \(setting refscore\.interpreter\): not found/);
  assert.match(failureMessage(none.failures, "fromEnvironment"), /set refscore\.importStrategy to "useBundled"/);
});
