/**
 * RefScore: Set Up CodeBERTScore. The server's own `refscore setup` does the work: its plan is the
 * one question (what is downloaded, how big, where), its JSON-line events are the progress
 * notification, its log and failure reason are shown as they are.
 */

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { isReady, type ManagedEnv, parsePlan, type SetupPlan, setupArgs, type SetupSettings } from "./setupPlan";
import { runSetup } from "./stepRunner";

const PLAN_TIMEOUT_MS = 60_000;

export interface SetupContext {
  env: ManagedEnv;
  /** The refscore wheel inside the extension, or undefined in a build without one. */
  wheel: string | undefined;
  output: vscode.LogOutputChannel;
}

/** How the server runs: `refscore setup` runs with the same interpreter and libraries. */
export interface Launch {
  python: string;
  env: NodeJS.ProcessEnv;
}

function settings(): SetupSettings {
  const config = vscode.workspace.getConfiguration("refscore.setup");
  return {
    torch: config.get<string>("torch") ?? "",
    torchIndexUrl: config.get<string>("torchIndexUrl") ?? "",
    findLinks: config.get<string>("findLinks") ?? "",
    pipArgs: config.get<string[]>("pipArgs") ?? [],
  };
}

/** `refscore setup --plan --json`: the plan, or why there is none (one line). */
function fetchPlan(launch: Launch, args: string[]): Promise<SetupPlan | string> {
  return new Promise((resolve) => {
    execFile(launch.python, args, { env: launch.env, timeout: PLAN_TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) => {
      const plan = parsePlan(`${stdout}`);
      if (plan !== undefined) {
        resolve(plan);
        return;
      }
      const last = `${stderr}`.trim().split(/\r?\n/).pop();
      resolve(last || (error ? error.message : "refscore setup printed no plan"));
    });
  });
}

async function install(ctx: SetupContext, launch: Launch, args: string[]): Promise<void> {
  const { output } = ctx;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "RefScore: setting up CodeBERTScore", cancellable: true },
    async (progress, token) => {
      let title = "";
      let steps = 1;
      await runSetup(launch.python, args, launch.env, {
        log: (line) => output.info(`[set-up] ${line}`),
        event: (event) => {
          if (event.event === "step") {
            title = event.title;
            steps = event.steps;
            progress.report({ message: title, increment: event.step === 1 ? 0 : 100 / steps });
          } else if (event.event === "progress") {
            progress.report({ message: `${title}: ${event.message}` });
          } else if (event.event === "done") {
            progress.report({ message: "done", increment: 100 / steps });
          }
        },
        onCancel: (kill) => {
          const listener = token.onCancellationRequested(kill);
          return () => listener.dispose();
        },
        isCancelled: () => token.isCancellationRequested,
      });
    },
  );
}

let running = false;

/** The command body; `onReady` restarts the server from the new environment. */
export async function setUpCodeBertScore(ctx: SetupContext, launch: Launch, onReady: () => Promise<void>): Promise<void> {
  const { env, output } = ctx;
  if (running) {
    void vscode.window.showInformationMessage("RefScore: CodeBERTScore is being set up already (see the progress notification).");
    return;
  }
  if (ctx.wheel === undefined) {
    void vscode.window.showErrorMessage("RefScore: this build of the extension carries no refscore wheel (bundled/wheels); build it with client-vscode/scripts/build.sh.");
    return;
  }
  const chosen = settings();
  const plan = await fetchPlan(launch, setupArgs(env, ctx.wheel, chosen, true));
  if (typeof plan === "string" || plan.problems.length > 0) {
    const why = typeof plan === "string" ? plan : plan.problems.join("; ");
    output.error(`[set-up] ${why}`);
    void vscode.window.showErrorMessage(`RefScore cannot set up CodeBERTScore: ${why.replace(/^refscore setup: /, "")}.`);
    return;
  }
  const detail = [...plan.details, "CodeBLEU keeps working meanwhile; the log is in the RefScore output channel."].join("\n");
  const choice = await vscode.window.showInformationMessage(plan.question, { modal: true, detail }, "Set Up");
  if (choice !== "Set Up") {
    return;
  }
  running = true;
  output.info(`[set-up] ${plan.question} ${plan.details.join(" ")}`);
  try {
    await install(ctx, launch, setupArgs(env, ctx.wheel, chosen, false));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    output.error(`[set-up] ${reason}`);
    void vscode.window.showErrorMessage(`RefScore: setting up CodeBERTScore ${reason === "cancelled" ? "was cancelled" : `failed: ${reason}`}. CodeBLEU keeps working.`, "Show Log")
      .then((pick) => pick === "Show Log" && output.show());
    return;
  } finally {
    running = false;
  }
  if (!isReady(env)) {
    void vscode.window.showErrorMessage(`RefScore: refscore setup finished but ${env.dir} is not ready; see RefScore: Show Server Log.`);
    return;
  }
  output.info(`[set-up] CodeBERTScore is set up in ${env.dir}; restarting the server from it`);
  void vscode.window.showInformationMessage(`RefScore: CodeBERTScore is set up (${env.dir}).`);
  await onReady();
}
