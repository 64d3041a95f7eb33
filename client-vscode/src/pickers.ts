/** Quick picks whose entries jump to a place in a reference, opened beside the editor. */

import * as vscode from "vscode";
import type { Entry, Target } from "./items";

interface PickItem extends vscode.QuickPickItem {
  target?: Target;
}

export async function jumpTo(target: Target): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(target.uri));
  const position = new vscode.Position(target.line, target.character);
  await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: false,
    selection: new vscode.Range(position, position),
  });
}

export async function pickAndJump(entries: readonly Entry[], title: string, placeHolder: string): Promise<void> {
  const items: PickItem[] = entries.map((entry) =>
    entry.separator
      ? { label: entry.label, kind: vscode.QuickPickItemKind.Separator }
      : { label: entry.label, description: entry.description, detail: entry.detail, target: entry.target },
  );
  const chosen = await vscode.window.showQuickPick(items, { title, placeHolder, matchOnDescription: true, matchOnDetail: true });
  if (chosen?.target !== undefined) {
    await jumpTo(chosen.target);
  }
}
