/** Comparing code with the reference function it implements: rank alternatives, compare a
 * function with a reference function the user picks, show the two side by side (a diff editor). */

import * as vscode from "vscode";
import type { Parts } from "./commands";
import { COMPARE_WITH, describeAlternative, describeChoices, describeRanking, RANK_ALTERNATIVES, REFERENCE_CHOICES } from "./compareView";
import { jumpTo } from "./pickers";
import { isRange, isRecord, type LspRange } from "./protocol";

/** Documents of one function's text: `refscore-function:/name?{"uri":...,"range":...}`. */
const SCHEME = "refscore-function";

interface SideBySide {
  uri: string;
  range: LspRange;
  function: string;
  referenceUri: string;
  referenceRange: LspRange;
  referenceFunction: string;
}

function isSideBySide(value: unknown): value is SideBySide {
  return isRecord(value) && typeof value.uri === "string" && isRange(value.range) && typeof value.referenceUri === "string"
    && isRange(value.referenceRange) && typeof value.function === "string" && typeof value.referenceFunction === "string";
}

function partUri(uri: string, range: LspRange, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/${name}`, query: JSON.stringify({ uri, range }) });
}

/** Serves the text of one function of a document (the reference's or the candidate's). */
export function functionViews(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
      const { uri: source, range } = JSON.parse(uri.query) as { uri: string; range: LspRange };
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(source));
      return doc.getText(new vscode.Range(range.start.line, 0, range.end.line + 1, 0));
    },
  });
}

/** The code action's "show the reference function side by side": a diff editor, reference on the left. */
export async function showSideBySide(_parts: Parts, target?: unknown): Promise<void> {
  if (!isSideBySide(target)) {
    void vscode.window.showInformationMessage("RefScore: use this from a function's code actions (the light bulb).");
    return;
  }
  await vscode.commands.executeCommand("vscode.diff",
    partUri(target.referenceUri, target.referenceRange, target.referenceFunction),
    partUri(target.uri, target.range, target.function),
    `${target.referenceFunction} (reference) ↔ ${target.function}`);
}

/** "Compare with reference function...": pick one of the reference functions, best first. */
export async function compareWithReference({ session }: Parts, uriArg?: unknown, lineArg?: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const uri = typeof uriArg === "string" ? uriArg : editor?.document.uri.toString();
  const line = typeof lineArg === "number" ? lineArg : editor?.selection.active.line;
  if (uri === undefined || line === undefined) {
    void vscode.window.showInformationMessage("RefScore: put the cursor in the function to compare first.");
    return;
  }
  const choices = describeChoices(await session.executeCommand(REFERENCE_CHOICES, [uri, line]));
  if (choices.error !== undefined || choices.items.length === 0) {
    void vscode.window.showWarningMessage(choices.error ?? "RefScore: the reference has no functions.");
    return;
  }
  const picked = await vscode.window.showQuickPick(choices.items, {
    title: `Compare ${choices.function ?? "this function"} with reference function…`,
    placeHolder: "best match first: behaviour and signature, then name and resemblance",
  });
  if (picked === undefined) {
    return;
  }
  const answer = await session.executeCommand(COMPARE_WITH, [uri, line, picked.name]);
  if (isRecord(answer) && typeof answer.error === "string") {
    void vscode.window.showWarningMessage(`RefScore: ${answer.error}`);
    return;
  }
  const view = describeAlternative(answer);
  const open = await vscode.window.showInformationMessage(`${view.description}. ${view.detail}`, ...(view.region ? ["Open Reference Function"] : []));
  if (open !== undefined && view.region !== undefined) {
    await jumpTo({ uri: view.region.uri, line: view.region.range.start.line, character: view.region.range.start.character });
  }
}

/** Rank the selection, the clipboard and the last inserted block against the reference function each implements. */
export async function rankAlternatives({ session }: Parts): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showInformationMessage("RefScore: open the file to score first.");
    return;
  }
  const alternatives: { label: string; text: string }[] = [];
  if (!editor.selection.isEmpty) {
    alternatives.push({ label: "selection", text: editor.document.getText(editor.selection) });
  }
  const clipboard = await vscode.env.clipboard.readText();
  if (clipboard.trim() !== "" && clipboard !== alternatives[0]?.text) {
    alternatives.push({ label: "clipboard", text: clipboard });
  }
  const answer = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "RefScore: running the alternatives beside the reference…" },
    () => session.executeCommand(RANK_ALTERNATIVES, [editor.document.uri.toString(), alternatives, true]));
  const ranking = describeRanking(answer);
  if (ranking.error !== undefined) {
    void vscode.window.showWarningMessage(ranking.error);
    return;
  }
  const picked = await vscode.window.showQuickPick(ranking.items, {
    title: "RefScore: alternatives, best first (behaviour, then differences, then resemblance)",
    placeHolder: "choose one to open the reference function it was compared with",
  });
  if (picked?.region !== undefined) {
    await jumpTo({ uri: picked.region.uri, line: picked.region.range.start.line, character: picked.region.range.start.character });
  }
}
