/** RefScore: Set Up CodeBERTScore: asks once, then makes the managed environment with progress and a log. */

import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as vscode from "vscode";
import { formatSize, isReady, type ManagedEnv, type Plan, setupPlan } from "./setupPlan";
import { runStep } from "./stepRunner";

export interface SetupContext {
  env: ManagedEnv;
  /** The refscore wheel inside the extension, or undefined in a build without one. */
  wheel: string | undefined;
  output: vscode.LogOutputChannel;
}

/** Whether an NVIDIA GPU answers (`nvidia-smi -L` lists one). */
export function detectGpu(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("nvidia-smi", ["-L"], { timeout: 10_000 }, (error, stdout) => resolve(!error && /^GPU \d+:/m.test(`${stdout}`)));
  });
}

async function freeMB(dir: string): Promise<number | undefined> {
  try {
    await fs.mkdir(dir, { recursive: true });
    const stats = await fs.statfs(dir);
    return (stats.bavail * stats.bsize) / 1e6;
  } catch {
    return undefined;
  }
}

async function execute(plan: Plan, ctx: SetupContext): Promise<boolean> {
  const { env, output } = ctx;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "RefScore: setting up CodeBERTScore", cancellable: true },
    async (progress, token) => {
      await fs.rm(env.dir, { recursive: true, force: true });
      const share = 100 / plan.steps.length;
      for (const [index, step] of plan.steps.entries()) {
        progress.report({ message: step.title, increment: index === 0 ? 0 : share });
        await runStep(step, {
          log: (line) => output.info(`[set-up] ${line}`),
          report: (line) => progress.report({ message: `${step.title}: ${line}` }),
          onCancel: (kill) => {
            const listener = token.onCancellationRequested(kill);
            return () => listener.dispose();
          },
          isCancelled: () => token.isCancellationRequested,
        });
      }
      await fs.writeFile(env.marker, JSON.stringify({ created: new Date().toISOString(), steps: plan.steps.map((s) => s.title) }, null, 2));
      progress.report({ increment: share, message: "done" });
      return true;
    },
  );
}

let running = false;

/**
 * The command body. `basePython` is the interpreter the server found (Python 3.10+ with venv), or
 * undefined when none was; `onReady` restarts the server from the new environment.
 */
export async function setUpCodeBertScore(ctx: SetupContext, basePython: { command: string; venv: boolean } | undefined, onReady: () => Promise<void>): Promise<void> {
  const { env, output } = ctx;
  if (running) {
    void vscode.window.showInformationMessage("RefScore: CodeBERTScore is being set up already (see the progress notification).");
    return;
  }
  if (ctx.wheel === undefined) {
    void vscode.window.showErrorMessage("RefScore: this build of the extension carries no refscore wheel (bundled/wheels); build it with client-vscode/scripts/build.sh.");
    return;
  }
  if (basePython === undefined || !basePython.venv) {
    const why = basePython === undefined
      ? "no Python 3.10 or newer was found (see RefScore: Show Server Log)"
      : `${basePython.command} cannot make environments (no venv/ensurepip module; on Debian and Ubuntu: sudo apt install python3-venv)`;
    void vscode.window.showErrorMessage(`RefScore cannot set up CodeBERTScore: ${why}.`);
    return;
  }
  const config = vscode.workspace.getConfiguration("refscore.setup");
  const gpu = await detectGpu();
  const plan = setupPlan({
    platform: process.platform,
    gpu,
    basePython: basePython.command,
    env,
    wheel: ctx.wheel,
    torch: config.get<string>("torch")?.trim() || "torch",
    torchIndexUrl: config.get<string>("torchIndexUrl") ?? "",
    findLinks: config.get<string>("findLinks") ?? "",
    pipArgs: config.get<string[]>("pipArgs") ?? [],
  });
  const free = await freeMB(vscode.Uri.joinPath(vscode.Uri.file(env.dir), "..").fsPath);
  if (free !== undefined && free < plan.diskMB) {
    void vscode.window.showErrorMessage(
      `RefScore cannot set up CodeBERTScore: it needs about ${formatSize(plan.diskMB)} of disk and ${formatSize(free)} is free where it goes (${env.dir}).`);
    return;
  }
  const choice = await vscode.window.showInformationMessage(plan.question, { modal: true, detail: plan.detail }, "Set Up");
  if (choice !== "Set Up") {
    return;
  }
  running = true;
  output.info(`[set-up] ${plan.question} ${plan.detail.replace(/\n/g, " ")}`);
  try {
    await execute(plan, ctx);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    output.error(`[set-up] ${reason}`);
    await fs.rm(env.dir, { recursive: true, force: true }).catch(() => undefined);
    void vscode.window.showErrorMessage(`RefScore: setting up CodeBERTScore ${reason === "cancelled" ? "was cancelled" : `failed: ${reason}`}. CodeBLEU keeps working.`, "Show Log")
      .then((pick) => pick === "Show Log" && output.show());
    return;
  } finally {
    running = false;
  }
  if (!isReady(env)) {
    return;
  }
  output.info(`[set-up] CodeBERTScore is set up in ${env.dir}; restarting the server from it`);
  void vscode.window.showInformationMessage(`RefScore: CodeBERTScore is set up (${env.dir}).`);
  await onReady();
}
