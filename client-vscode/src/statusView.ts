/** The status bar item: the active file's CodeBLEU and F3, spinning while the server works. */

import * as vscode from "vscode";
import { type DiagnosticLike, type FileState, fileState, isBusy, statusText, statusTooltip } from "./summary";

export class StatusView implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly states = new Map<string, FileState>();

  constructor() {
    this.item = vscode.window.createStatusBarItem("refscore.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "RefScore";
    this.item.command = "refscore.showScores";
  }

  /** New diagnostics for a file. */
  update(uri: vscode.Uri, diagnostics: readonly DiagnosticLike[]): FileState | undefined {
    const state = fileState(diagnostics);
    if (state === undefined) {
      this.states.delete(uri.toString());
    } else {
      this.states.set(uri.toString(), state);
    }
    this.refresh();
    return state;
  }

  stateOf(uri: vscode.Uri): FileState | undefined {
    return this.states.get(uri.toString());
  }

  clear(): void {
    this.states.clear();
    this.refresh();
  }

  /** Redraws for the active editor (call on editor switches and edits). */
  refresh(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const state = doc !== undefined ? this.states.get(doc.uri.toString()) : undefined;
    if (doc === undefined || state === undefined) {
      this.item.hide();
      return;
    }
    const busy = isBusy(state, doc.version);
    this.item.text = statusText(state, busy);
    this.item.tooltip = statusTooltip(state, busy);
    this.item.show();
  }

  /** The item's text now (for the test harness). */
  get text(): string | undefined {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
  }
}
