/**
 * The managed CodeBERTScore environment and the `refscore setup` command line that makes it: where
 * it lives, when it is ready, the arguments from the settings, and the plan and events the command
 * prints (JSON). What is downloaded, from where and how big is the command's business, not the
 * extension's. No vscode import: unit-tested as it is.
 */

import { existsSync } from "node:fs";
import * as path from "node:path";
import { isRecord } from "./protocol";

/** Written by `refscore setup` into the environment last, after its check passed. */
export const MARKER = "refscore-env.json";

export interface ManagedEnv {
  dir: string;
  python: string;
  marker: string;
}

export function managedEnv(storageDir: string, platform: NodeJS.Platform = process.platform): ManagedEnv {
  const dir = path.join(storageDir, "bert-env");
  const python = platform === "win32" ? path.join(dir, "Scripts", "python.exe") : path.join(dir, "bin", "python");
  return { dir, python, marker: path.join(dir, MARKER) };
}

/** Set up completely: the marker is written last, after the check passed. */
export function isReady(env: ManagedEnv): boolean {
  return existsSync(env.marker) && existsSync(env.python);
}

/** The `refscore.setup.*` settings, as the command takes them. */
export interface SetupSettings {
  torch: string;
  torchIndexUrl: string;
  findLinks: string;
  pipArgs: readonly string[];
}

/** `-m refscore setup ...` for the interpreter that runs the server: the plan (`plan`) or the install. */
export function setupArgs(env: ManagedEnv, wheel: string, settings: SetupSettings, plan: boolean): string[] {
  const args = ["-m", "refscore", "setup", "--json", "--env", env.dir, "--from", wheel];
  const add = (flag: string, value: string) => value.trim() && args.push(`${flag}=${value.trim()}`);
  add("--torch", settings.torch);
  add("--torch-index-url", settings.torchIndexUrl);
  add("--find-links", settings.findLinks);
  for (const arg of settings.pipArgs) {
    args.push(`--pip-arg=${arg}`);
  }
  return plan ? [...args, "--plan"] : args;
}

/** The plan `refscore setup --plan --json` prints (the fields the extension shows). */
export interface SetupPlan {
  question: string;
  details: string[];
  problems: string[];
  log: string;
}

/** The JSON value in `text`, or undefined when it is not JSON. */
function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function parsePlan(stdout: string): SetupPlan | undefined {
  const raw = json(stdout);
  if (!isRecord(raw) || typeof raw.question !== "string") {
    return undefined;
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
  return { question: raw.question, details: strings(raw.details), problems: strings(raw.problems), log: typeof raw.log === "string" ? raw.log : "" };
}

/** One line the install prints (`--json`: one event a line). */
export type SetupEvent =
  | { event: "step"; step: number; steps: number; title: string }
  | { event: "progress"; step: number; message: string }
  | { event: "done"; python: string; seconds: number; log: string }
  | { event: "failed"; reason: string; log: string | null }
  | { event: "plan" };

export function parseEvent(line: string): SetupEvent | undefined {
  const raw = json(line);
  if (!isRecord(raw)) {
    return undefined;
  }
  const num = (v: unknown) => (typeof v === "number" ? v : 0);
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  switch (raw.event) {
    case "plan":
      return { event: "plan" };
    case "step":
      return { event: "step", step: num(raw.step), steps: Math.max(num(raw.steps), 1), title: str(raw.title) };
    case "progress":
      return { event: "progress", step: num(raw.step), message: str(raw.message) };
    case "done":
      return { event: "done", python: str(raw.python), seconds: num(raw.seconds), log: str(raw.log) };
    case "failed":
      return { event: "failed", reason: str(raw.reason) || "refscore setup failed", log: typeof raw.log === "string" ? raw.log : null };
    default:
      return undefined;
  }
}
