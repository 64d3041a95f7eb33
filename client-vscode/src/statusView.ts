/** The status bar item: the active file's CodeBLEU and F3, spinning while the server works; says when CodeBERTScore needs setting up. */

import * as vscode from "vscode";
import { documentSelector } from "./selector";
import { type DiagnosticLike, type FileState, fileState, isBusy, NO_REFERENCE_TEXT, noReferenceTooltip, STOPPED_TEXT, statusText, statusTooltip,
  stoppedTooltip } from "./summary";

export class StatusView implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly states = new Map<string, FileState>();
  /** Files the server found no reference for: uri -> its message. */
  private readonly unreferenced = new Map<string, string>();
  private bertSetup = false;
  /** Why no server runs now (undefined while one runs or starts). */
  private stopped: { reason: string | undefined } | undefined;

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
      this.unreferenced.delete(uri.toString());
    }
    this.refresh();
    return state;
  }

  /** The server found no reference for a file (`refscore/documentStatus` `noReference`): the item offers Set Reference.... */
  noReference(uri: string, message: string): void {
    this.states.delete(uri);
    this.unreferenced.set(uri, message);
    this.refresh();
  }

  /** CodeBERTScore needs setting up (the item says so, and a click starts the set-up). */
  setBertSetup(needed: boolean): void {
    this.bertSetup = needed;
    this.refresh();
  }

  /** No server runs: the scores shown are dropped (they would no longer follow edits) and the item says so. */
  serverStopped(reason?: string): void {
    this.stopped = { reason };
    this.states.clear();
    this.unreferenced.clear();
    this.refresh();
  }

  /** A server runs again: the item follows its diagnostics. */
  serverRunning(): void {
    if (this.stopped === undefined) {
      return;
    }
    this.stopped = undefined;
    this.refresh();
  }

  stateOf(uri: vscode.Uri): FileState | undefined {
    return this.states.get(uri.toString());
  }

  clear(): void {
    this.states.clear();
    this.unreferenced.clear();
    this.refresh();
  }

  /** Redraws for the active editor (call on editor switches and edits). */
  refresh(): void {
    // what a click does follows the state: restart a stopped server, set CodeBERTScore up, or show the scores
    this.item.command = this.stopped !== undefined ? "refscore.restartServer"
      : this.bertSetup ? "refscore.setUpCodeBertScore" : "refscore.showScores";
    const doc = vscode.window.activeTextEditor?.document;
    if (this.stopped !== undefined && doc !== undefined && vscode.languages.match(documentSelector(), doc) > 0) {
      this.item.text = STOPPED_TEXT;
      this.item.tooltip = stoppedTooltip(this.stopped.reason);
      this.item.show();
      return;
    }
    const state = doc !== undefined ? this.states.get(doc.uri.toString()) : undefined;
    const unreferenced = doc !== undefined ? this.unreferenced.get(doc.uri.toString()) : undefined;
    if (state === undefined && unreferenced !== undefined) {
      this.item.command = "refscore.chooseReference";
      this.item.text = NO_REFERENCE_TEXT;
      this.item.tooltip = noReferenceTooltip(unreferenced);
      this.item.show();
      return;
    }
    if (doc === undefined || state === undefined) {
      this.item.hide();
      return;
    }
    const busy = isBusy(state, doc.version);
    const setup = this.bertSetup && state.kind === "summary";
    this.item.text = statusText(state, busy, setup);
    this.item.tooltip = statusTooltip(state, busy, setup);
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
