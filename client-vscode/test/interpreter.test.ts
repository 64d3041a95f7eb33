import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { candidates, failureMessage, findInterpreter, probeWith } from "../src/interpreter";

const dir = mkdtempSync(join(tmpdir(), "refscore-interp-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in "python" (a shell script) that answers `-m refscore --version` the way we choose. */
function fakePython(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

test("the setting wins alone; otherwise the Python extension, then python3 on PATH", () => {
  assert.deepEqual(candidates("/opt/venv/bin/python", "/ext/python"), [{ command: "/opt/venv/bin/python", source: "setting refscore.interpreter" }]);
  assert.deepEqual(candidates("  ", "/ext/python"), [
    { command: "/ext/python", source: "Python extension" },
    { command: "python3", source: "PATH" },
  ]);
  assert.deepEqual(candidates(undefined, undefined), [{ command: "python3", source: "PATH" }]);
});

test("a probe runs `-m refscore --version` and tells why it failed", async () => {
  const probe = probeWith(10_000);
  const good = fakePython("good", '[ "$1 $2 $3" = "-m refscore --version" ] && echo "refscore 0.1.0" || exit 3');
  assert.deepEqual(await probe(good), { ok: true, version: "refscore 0.1.0" });
  const without = fakePython("without", 'echo "/usr/bin/python3: No module named refscore" >&2; exit 1');
  assert.deepEqual(await probe(without), { ok: false, reason: "the refscore package is not installed there" });
  assert.deepEqual(await probe(join(dir, "absent")), { ok: false, reason: "not found" });
  const odd = fakePython("odd", "echo hello");
  assert.deepEqual(await probe(odd), { ok: false, reason: "unexpected output: hello" });
  const slow = fakePython("slow", "sleep 5");
  assert.deepEqual(await probeWith(300)(slow), { ok: false, reason: "timed out" });
});

test("the first working candidate is used; failures before it are reported", async () => {
  const good = fakePython("good2", 'echo "refscore 0.1.0"');
  const bad = fakePython("bad2", "exit 1");
  const found = await findInterpreter(
    [
      { command: bad, source: "Python extension" },
      { command: good, source: "PATH" },
    ],
    probeWith(10_000),
  );
  assert.equal(found.found?.candidate.command, good);
  assert.equal(found.failures.length, 1);
  const none = await findInterpreter([{ command: join(dir, "nope"), source: "setting refscore.interpreter" }], probeWith(10_000));
  assert.equal(none.found, undefined);
  const message = failureMessage(none.failures);
  assert.match(message, /nope \(setting refscore\.interpreter\): not found/);
  assert.match(message, /set refscore\.interpreter/);
});
