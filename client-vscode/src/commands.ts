/** The extension's commands (the server's own commands are registered by the language client). */

import * as path from "node:path";
import * as vscode from "vscode";
import type { HeatView } from "./heatView";
import { missingEntries, scoreEntries } from "./items";
import { jumpTo, pickAndJump } from "./pickers";
import { isMissingItem, MISSING, type MissingItem, SCORE_TEXT, SET_REFERENCE } from "./protocol";
import { describeScoreText } from "./scoreText";
import { compareWithReference, functionViews, rankAlternatives, showSideBySide } from "./compare";
import type { Session } from "./session";
import { setUpCodeBertScore, type SetupContext } from "./setup";
import type { StatusView } from "./statusView";
import { baseName } from "./summary";

export interface Parts {
  session: Session;
  status: StatusView;
  heat: HeatView;
  output: vscode.LogOutputChannel;
  setup: SetupContext;
}

function activeDocument(): vscode.TextDocument | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc === undefined) {
    void vscode.window.showInformationMessage("RefScore: open the file to score first.");
  }
  return doc;
}

export async function fetchMissing(session: Session, uri: vscode.Uri): Promise<MissingItem[]> {
  const result = await session.executeCommand(MISSING, [uri.toString()]);
  return Array.isArray(result) ? result.filter(isMissingItem) : [];
}

/** Runs a command body, turning a thrown error into one message and a log line. */
function guarded(output: vscode.LogOutputChannel, body: (...args: unknown[]) => Promise<void>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    try {
      await body(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      output.error(message);
      void vscode.window.showErrorMessage(`RefScore: ${message}`);
    }
  };
}

export function showMissingList(items: readonly MissingItem[], doc: vscode.Uri): Promise<void> {
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`RefScore: nothing from the reference is missing in ${baseName(doc.toString())} (or it is not scored yet).`);
    return Promise.resolve();
  }
  return pickAndJump(missingEntries(items), `Missing from ${baseName(doc.toString())} (${items.length})`, "What the reference has that this file lacks; choose one to see it");
}

async function chooseReference({ session }: Parts): Promise<void> {
  const doc = activeDocument();
  if (doc === undefined) {
    return;
  }
  const pick = await vscode.window.showQuickPick(
    [
      { label: "$(file) Choose reference file(s)…", id: "files" },
      { label: "$(search) Find it automatically", description: "pragma, refscore.references, conventions", id: "auto" },
    ],
    { title: `Reference for ${baseName(doc.uri.toString())}` },
  );
  if (pick === undefined) {
    return;
  }
  let target: string[] | null = null;
  if (pick.id === "files") {
    const files = await vscode.window.showOpenDialog({
      canSelectMany: true,
      // an untitled buffer has no folder: start where its relative paths start, the first workspace folder
      defaultUri: doc.uri.scheme === "file" ? vscode.Uri.file(path.dirname(doc.uri.fsPath)) : vscode.workspace.workspaceFolders?.[0]?.uri,
      openLabel: "Use as Reference",
    });
    if (files === undefined || files.length === 0) {
      return;
    }
    target = files.map((f) => f.fsPath);
  }
  const result = await session.executeCommand(SET_REFERENCE, [doc.uri.toString(), target]);
  const refs = (result as { references?: unknown })?.references;
  const names = Array.isArray(refs) ? refs.map((r) => baseName(String(r))).join(", ") : "";
  void vscode.window.showInformationMessage(
    target === null ? "RefScore: the reference is found automatically again." : `RefScore: scoring ${baseName(doc.uri.toString())} against ${names}.`,
  );
}

async function openReference({ status }: Parts): Promise<void> {
  const doc = activeDocument();
  if (doc === undefined) {
    return;
  }
  const state = status.stateOf(doc.uri);
  const refs = state?.kind === "summary" ? state.references : [];
  if (refs.length === 0) {
    void vscode.window.showInformationMessage("RefScore: this file has no reference yet (RefScore: Set Reference… chooses one).");
    return;
  }
  let uri: string | undefined = refs[0];
  if (refs.length > 1) {
    uri = (await vscode.window.showQuickPick(refs.map((r) => ({ label: baseName(r), description: r, uri: r }))))?.uri;
  }
  if (uri !== undefined) {
    await jumpTo({ uri, line: 0, character: 0 });
  }
}

async function scoreSelection({ session }: Parts): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.selection.isEmpty) {
    void vscode.window.showInformationMessage("RefScore: select the code to score first.");
    return;
  }
  const answer = await session.request(SCORE_TEXT, { uri: editor.document.uri.toString(), text: editor.document.getText(editor.selection) });
  const view = describeScoreText(answer);
  if (view.failed) {
    void vscode.window.showWarningMessage(view.message);
    return;
  }
  const choice = await vscode.window.showInformationMessage(view.message, ...(view.region ? ["Open Reference Region"] : []));
  if (choice !== undefined && view.region !== undefined) {
    await jumpTo(view.region);
  }
}

async function showMissing({ session }: Parts): Promise<void> {
  const doc = activeDocument();
  if (doc !== undefined) {
    await showMissingList(await fetchMissing(session, doc.uri), doc.uri);
  }
}

async function showScores({ session, status }: Parts): Promise<void> {
  const doc = activeDocument();
  if (doc === undefined) {
    return;
  }
  const state = status.stateOf(doc.uri);
  if (state === undefined || state.kind === "problem") {
    void vscode.window.showInformationMessage(state?.message ?? "RefScore: this file has no scores (no reference found).");
    return;
  }
  const missing = await fetchMissing(session, doc.uri);
  await pickAndJump(scoreEntries(state, missing), `RefScore: ${baseName(doc.uri.toString())}`, "Scores and what the reference has that this file lacks");
}

async function setUp({ session, setup, status }: Parts): Promise<void> {
  const state = session.status?.codebertscore;
  if (session.launch === undefined || (state !== undefined && state !== "setup")) {
    const why = session.launch === undefined
      ? "the server is not running (see RefScore: Show Server Log)"
      : `the server says CodeBERTScore is ${state}${session.status?.reason ? ` (${session.status.reason})` : ""}`;
    void vscode.window.showInformationMessage(`RefScore: CodeBERTScore needs no set-up now: ${why}.`);
    return;
  }
  await setUpCodeBertScore(setup, session.launch, async () => {
    status.clear();
    await session.restart();
  });
}

export function registerCommands(parts: Parts): vscode.Disposable[] {
  const { output, heat, session } = parts;
  const bodies: Record<string, (p: Parts, ...args: unknown[]) => Promise<void>> = {
    "refscore.chooseReference": chooseReference,
    "refscore.openReference": openReference,
    "refscore.scoreSelection": scoreSelection,
    "refscore.showMissing": showMissing,
    "refscore.showScores": showScores,
    "refscore.toggleHeatMap": async () => {
      heat.setEnabled(!heat.enabled);
      vscode.window.setStatusBarMessage(`RefScore heat map ${heat.enabled ? "on" : "off"}`, 3000);
    },
    "refscore.restartServer": async () => {
      output.info("Restarting the server");
      parts.status.clear();
      await session.restart();
    },
    "refscore.showLog": async () => output.show(),
    "refscore.setUpCodeBertScore": setUp,
    "refscore.compareWithReference": compareWithReference,
    "refscore.showReferenceSideBySide": showSideBySide,
    "refscore.rankCompletions": rankAlternatives,
  };
  const commands = Object.entries(bodies).map(([id, body]) => vscode.commands.registerCommand(id, guarded(output, (...args) => body(parts, ...args))));
  return [...commands, functionViews()];
}
