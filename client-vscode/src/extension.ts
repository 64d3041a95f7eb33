/** Entry point: wires the session, the heat map, the status item and the commands together. */

import * as vscode from "vscode";
import { registerCommands, showMissingList } from "./commands";
import type { DrawnHeat } from "./heatView";
import { HeatView } from "./heatView";
import { HeatStore } from "./heatStore";
import { isMissingItem, parseDocumentStatus } from "./protocol";
import { needsSetup } from "./serverStatus";
import { Bundle, Session } from "./session";
import { managedEnv } from "./setupPlan";
import { StatusView } from "./statusView";

/** What `activate` returns: read-only views for tests and other extensions. */
export interface RefScoreApi {
  ready: Promise<void>;
  isRunning(): boolean;
  statusText(): string | undefined;
  heatOn(uri: string): DrawnHeat | undefined;
  /** The server says CodeBERTScore needs RefScore: Set Up CodeBERTScore with the interpreter in use. */
  bertNeedsSetup(): boolean;
  /** The interpreter the server runs with, and where it came from. */
  interpreter(): { command: string; source: string } | undefined;
}

let current: Session | undefined;

export function activate(context: vscode.ExtensionContext): RefScoreApi {
  const output = vscode.window.createOutputChannel("RefScore", { log: true });
  const status = new StatusView();
  const config = vscode.workspace.getConfiguration("refscore");
  const heat = new HeatView(new HeatStore(), config.get<boolean>("heatMap.enabled", false), (line) => output.debug(line));
  const bundle = new Bundle(context.extensionPath);
  const managed = managedEnv(context.globalStorageUri.fsPath);
  const session = new Session(output, {
    statusChanged: (told) => status.setBertSetup(needsSetup(told)),
    serverStopped(reason) {
      status.serverStopped(reason);
      heat.dropAll();
    },
    serverRunning: () => status.serverRunning(),
    diagnostics(uri, diagnostics) {
      const state = status.update(uri, diagnostics);
      if (state?.kind === "summary" && ["off", "skipped", "unavailable", "setup"].includes(state.bertState ?? "")) {
        heat.drop(uri.toString());
      } else if (state === undefined || state.kind === "problem") {
        heat.drop(uri.toString());
      }
    },
    tokenScores: (payload) => heat.receive(payload),
    documentStatus(payload) {
      const told = parseDocumentStatus(payload);
      if (told?.state === "noReference") {
        status.noReference(told.uri, told.message);
      }
    },
    missingShown(args, result) {
      const uri = typeof args[0] === "string" ? vscode.Uri.parse(args[0]) : vscode.window.activeTextEditor?.document.uri;
      if (uri !== undefined) {
        void showMissingList(Array.isArray(result) ? result.filter(isMissingItem) : [], uri);
      }
    },
  }, bundle, managed);
  current = session;
  const parts = { session, status, heat, output, setup: { env: managed, wheel: bundle.wheel, output } };
  context.subscriptions.push(
    output,
    status,
    heat,
    session,
    ...registerCommands(parts),
    vscode.window.onDidChangeVisibleTextEditors(() => heat.redrawAll()),
    vscode.window.onDidChangeActiveTextEditor(() => status.refresh()),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === vscode.window.activeTextEditor?.document) {
        status.refresh();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("refscore.heatMap.enabled")) {
        heat.setEnabled(vscode.workspace.getConfiguration("refscore").get<boolean>("heatMap.enabled", false));
      } else if (event.affectsConfiguration("refscore.weakTokens.threshold")) {
        heat.redrawAll();
      }
      if (["interpreter", "importStrategy", "server.args"].some((key) => event.affectsConfiguration(`refscore.${key}`))) {
        output.info("The interpreter, import strategy or server arguments changed: restarting the server");
        void session.restart();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.info("The workspace is trusted now: restarting the server with the workspace's choices");
      void session.restart();
    }),
  );
  const ready = session.start();
  return {
    ready,
    isRunning: () => session.running,
    statusText: () => status.text,
    heatOn: (uri) => heat.drawnOn(uri),
    bertNeedsSetup: () => session.bertNeedsSetup,
    interpreter: () => session.found && { command: session.found.candidate.command, source: session.found.candidate.source },
  };
}

/** Stops the server before VS Code unloads the extension (it waits for the promise). */
export function deactivate(): Promise<void> | undefined {
  const session = current;
  current = undefined;
  return session?.stop();
}
