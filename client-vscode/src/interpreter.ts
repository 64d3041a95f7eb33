/** Finding a Python that can run `python -m refscore`: candidates in order, probed one by one. */

import { execFile } from "node:child_process";

export type Source = "setting refscore.interpreter" | "Python extension" | "PATH";

export interface Candidate {
  command: string;
  source: Source;
}

export interface Failure {
  candidate: Candidate;
  reason: string;
}

export type Probe = (command: string) => Promise<{ ok: true; version: string } | { ok: false; reason: string }>;

export interface Found {
  candidate: Candidate;
  version: string;
}

/**
 * The order: the setting when it is set (and then only it: an explicit choice that does not work
 * should be reported, not silently replaced), else the Python extension's interpreter, else python3.
 */
export function candidates(setting: string | undefined, pythonExtension: string | undefined): Candidate[] {
  const chosen = setting?.trim();
  if (chosen) {
    return [{ command: chosen, source: "setting refscore.interpreter" }];
  }
  const out: Candidate[] = [];
  if (pythonExtension?.trim()) {
    out.push({ command: pythonExtension.trim(), source: "Python extension" });
  }
  out.push({ command: "python3", source: "PATH" });
  return out;
}

/** Runs `COMMAND -m refscore --version`; ok when it prints `refscore X`. */
export function probeWith(timeoutMs: number): Probe {
  return (command) =>
    new Promise((resolve) => {
      execFile(command, ["-m", "refscore", "--version"], { timeout: timeoutMs, env: process.env }, (error, stdout, stderr) => {
        const out = `${stdout}`.trim();
        if (!error && /^refscore\s+\S+/.test(out)) {
          resolve({ ok: true, version: out });
          return;
        }
        resolve({ ok: false, reason: describeFailure(error, `${stderr}`, out) });
      });
    });
}

function describeFailure(error: (Error & { code?: unknown; killed?: boolean }) | null, stderr: string, stdout: string): string {
  if (error?.code === "ENOENT") {
    return "not found";
  }
  if (error?.code === "EACCES") {
    return "not executable";
  }
  if (error?.killed) {
    return "timed out";
  }
  const lines = stderr.trim().split(/\r?\n/).filter((l) => l.trim());
  const last = lines[lines.length - 1];
  if (last && /No module named/.test(last)) {
    return "the refscore package is not installed there";
  }
  return last ?? (stdout ? `unexpected output: ${stdout.slice(0, 120)}` : (error?.message ?? "failed"));
}

/** The first candidate whose probe succeeds, and why each one before it failed. */
export async function findInterpreter(list: readonly Candidate[], probe: Probe): Promise<{ found?: Found; failures: Failure[] }> {
  const failures: Failure[] = [];
  for (const candidate of list) {
    const result = await probe(candidate.command);
    if (result.ok) {
      return { found: { candidate, version: result.version }, failures };
    }
    failures.push({ candidate, reason: result.reason });
  }
  return { failures };
}

/** One message naming every interpreter tried and the fix. */
export function failureMessage(failures: readonly Failure[]): string {
  const tried = failures.map((f) => `${f.candidate.command} (${f.candidate.source}): ${f.reason}`).join("; ");
  return (
    `RefScore cannot start its server: no Python with the refscore package was found. Tried ${tried}. ` +
    "Fix: install RefScore into a Python environment (bash scripts/setup.sh in the RefScore repository, or " +
    "pip install <path to the repository>), then set refscore.interpreter to that environment's python " +
    "(e.g. /path/to/refscore/.venv/bin/python) and run RefScore: Restart Server."
  );
}
