/** Finding the Python that runs the server: candidates in order, each probed once. */

import { execFile } from "node:child_process";

export type Source = "setting refscore.interpreter" | "CodeBERTScore environment" | "Python extension" | "PATH";

/** Where `refscore` and its CodeBLEU libraries come from (like the Python tools template's setting). */
export type ImportStrategy = "useBundled" | "fromEnvironment";

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface Candidate {
  command: string;
  source: Source;
}

/** What the probe found out about an interpreter. */
export interface Facts {
  python: string;
  /** The refscore version importable (with the bundled libraries first when bundled), else null. */
  refscore: string | null;
  /** Why refscore (or a library it needs) did not import. */
  importError?: string;
}

export interface Failure {
  candidate: Candidate;
  reason: string;
}

export interface Found {
  candidate: Candidate;
  facts: Facts;
}

export type Probe = (command: string) => Promise<{ ok: true; facts: Facts } | { ok: false; reason: string }>;

export interface Inputs {
  setting?: string;
  /** The managed CodeBERTScore environment's python, when it is set up. */
  managed?: string;
  pythonExtension?: string;
  /** Untrusted workspaces never run an interpreter the workspace chose (the Python extension's may be a workspace venv). */
  trusted: boolean;
  platform?: NodeJS.Platform;
}

/**
 * The order: the setting when it is set (and then only it: an explicit choice that does not work
 * is reported, not silently replaced); else the CodeBERTScore environment set up by the extension,
 * the Python extension's interpreter (trusted workspaces only), python3, python.
 */
export function candidates(inputs: Inputs): Candidate[] {
  const chosen = inputs.setting?.trim();
  if (chosen) {
    return [{ command: chosen, source: "setting refscore.interpreter" }];
  }
  const out: Candidate[] = [];
  if (inputs.managed) {
    out.push({ command: inputs.managed, source: "CodeBERTScore environment" });
  }
  if (inputs.trusted && inputs.pythonExtension?.trim()) {
    out.push({ command: inputs.pythonExtension.trim(), source: "Python extension" });
  }
  const names = (inputs.platform ?? process.platform) === "win32" ? ["python", "python3"] : ["python3", "python"];
  out.push(...names.map((command) => ({ command, source: "PATH" as const })));
  return out;
}

/** Runs in the candidate: its version and whether the server imports (what it can score, the server says itself). Python 2 safe. */
export const PROBE_CODE = [
  "import json, sys",
  "out = {'python': '%d.%d.%d' % tuple(sys.version_info[:3]), 'refscore': None}",
  "try:",
  "    import refscore, tree_sitter, pygls",
  "    out['refscore'] = refscore.__version__",
  "except Exception as error:",
  "    out['importError'] = '%s: %s' % (type(error).__name__, error)",
  "print(json.dumps(out))",
].join("\n");

/** The environment a server (and its probe) runs with: the bundled libraries first when `libs` is given. */
export function serverEnv(base: NodeJS.ProcessEnv, libs: string | undefined, delimiter = process.platform === "win32" ? ";" : ":"): NodeJS.ProcessEnv {
  if (libs === undefined) {
    return { ...base };
  }
  const rest = base.PYTHONPATH ? `${delimiter}${base.PYTHONPATH}` : "";
  return { ...base, PYTHONPATH: `${libs}${rest}` };
}

function versionOk(python: string): boolean {
  const [major, minor] = python.split(".").map(Number);
  return major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]);
}

/** Judges a probe's output: ok with the facts, or why this interpreter cannot run the server. */
export function judge(stdout: string, strategy: ImportStrategy): { ok: true; facts: Facts } | { ok: false; reason: string } {
  const line = stdout.trim().split(/\r?\n/).pop() ?? "";
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: `unexpected output: ${line.slice(0, 120)}` };
  }
  const facts: Facts = {
    python: typeof raw.python === "string" ? raw.python : "?",
    refscore: typeof raw.refscore === "string" ? raw.refscore : null,
    importError: typeof raw.importError === "string" ? raw.importError : undefined,
  };
  if (!versionOk(facts.python)) {
    return { ok: false, reason: `Python ${facts.python} is too old (RefScore needs ${MIN_PYTHON.join(".")} or newer)` };
  }
  if (facts.refscore === null) {
    const why = facts.importError ?? "import failed";
    return {
      ok: false,
      reason: strategy === "fromEnvironment" && /No module named '?refscore/.test(why)
        ? "the refscore package is not installed there"
        : strategy === "fromEnvironment" ? `refscore does not load there (${why}; reinstall it with its dependencies)`
          : `the bundled server does not load there (${why})`,
    };
  }
  return { ok: true, facts };
}

/** A probe running PROBE_CODE with `env` (the bundled libraries on PYTHONPATH for useBundled). */
export function probeWith(timeoutMs: number, env: NodeJS.ProcessEnv, strategy: ImportStrategy): Probe {
  return (command) =>
    new Promise((resolve) => {
      execFile(command, ["-c", PROBE_CODE], { timeout: timeoutMs, env }, (error, stdout, stderr) => {
        if (error && (error.code === "ENOENT" || error.code === "EACCES" || error.killed || !`${stdout}`.trim())) {
          resolve({ ok: false, reason: describeFailure(error, `${stderr}`) });
          return;
        }
        resolve(judge(`${stdout}`, strategy));
      });
    });
}

function describeFailure(error: Error & { code?: unknown; killed?: boolean }, stderr: string): string {
  if (error.code === "ENOENT") {
    return "not found";
  }
  if (error.code === "EACCES") {
    return "not executable";
  }
  if (error.killed) {
    return "timed out";
  }
  const lines = stderr.trim().split(/\r?\n/).filter((l) => l.trim());
  return lines[lines.length - 1] ?? error.message;
}

/** The first candidate whose probe succeeds, and why each one before it failed. */
export async function findInterpreter(list: readonly Candidate[], probe: Probe): Promise<{ found?: Found; failures: Failure[] }> {
  const failures: Failure[] = [];
  for (const candidate of list) {
    const result = await probe(candidate.command);
    if (result.ok) {
      return { found: { candidate, facts: result.facts }, failures };
    }
    failures.push({ candidate, reason: result.reason });
  }
  return { failures };
}

/** One message naming every interpreter tried and the fix. */
export function failureMessage(failures: readonly Failure[], strategy: ImportStrategy): string {
  const tried = failures.map((f) => `${f.candidate.command} (${f.candidate.source}): ${f.reason}`).join("; ");
  if (strategy === "useBundled") {
    return (
      `RefScore cannot start its server: no Python ${MIN_PYTHON.join(".")} or newer was found. Tried ${tried}. ` +
      "Fix: install Python 3 (python3 on PATH), or set refscore.interpreter to a Python 3.10+ " +
      "(e.g. /usr/bin/python3), then run RefScore: Restart Server."
    );
  }
  return (
    `RefScore cannot start its server: no Python with the refscore package was found. Tried ${tried}. ` +
    'Fix: set refscore.importStrategy to "useBundled" (the server that comes with the extension), or ' +
    "pip install refscore into a Python environment and set refscore.interpreter to that environment's " +
    "python (e.g. /path/to/refscore/.venv/bin/python), then run RefScore: Restart Server."
  );
}
