/** Draws the heat map: one decoration type per bucket, coloured by the contributed theme colours. */

import * as vscode from "vscode";
import { type Bucket, BUCKETS, colorId, planCounts, planHeat } from "./heat";
import type { HeatStore } from "./heatStore";
import { isTokenScoresPayload } from "./protocol";
import type { PlainRange } from "./ranges";
import { WEAK_TOKEN_THRESHOLD } from "./vocabulary.generated";

export interface DrawnHeat {
  version: number;
  counts: Record<Bucket, number>;
}

function toRange(r: PlainRange): vscode.Range {
  return new vscode.Range(r.startLine, r.startCharacter, r.endLine, r.endCharacter);
}

export class HeatView implements vscode.Disposable {
  private readonly types: Record<Bucket, vscode.TextEditorDecorationType>;
  private readonly drawn = new Map<string, DrawnHeat>();
  private on: boolean;

  constructor(
    private readonly store: HeatStore,
    enabled: boolean,
    private readonly log: (line: string) => void,
  ) {
    this.on = enabled;
    const make = (bucket: Bucket) =>
      vscode.window.createTextEditorDecorationType({
        backgroundColor: new vscode.ThemeColor(colorId(bucket)),
        overviewRulerColor: bucket === "weak" ? new vscode.ThemeColor(colorId(bucket)) : undefined,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      });
    this.types = { weak: make("weak"), low: make("low"), fair: make("fair") };
  }

  get enabled(): boolean {
    return this.on;
  }

  setEnabled(enabled: boolean): void {
    this.on = enabled;
    this.redrawAll();
  }

  /** A `refscore/tokenScores` notification: kept unless stale, then drawn where visible. */
  receive(payload: unknown): void {
    if (!isTokenScoresPayload(payload)) {
      this.log("Ignoring a refscore/tokenScores notification of unknown shape");
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === payload.uri);
    if (this.store.accept(payload, doc?.version) === "stale") {
      this.log(`Ignoring stale token scores for ${payload.uri} (version ${payload.version}, document ${doc?.version})`);
      return;
    }
    this.redraw(payload.uri);
  }

  /** The server will send no token scores for this text (CodeBERTScore off or unavailable). */
  drop(uri: string): void {
    this.store.forget(uri);
    this.redraw(uri);
  }

  /** The server stopped: no heat map stays drawn from scores that no longer follow the text. */
  dropAll(): void {
    this.store.clear();
    this.redrawAll();
  }

  redraw(uri: string): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === uri) {
        this.draw(editor);
      }
    }
  }

  redrawAll(): void {
    const visible = new Set(vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()));
    for (const uri of [...this.drawn.keys()].filter((u) => !visible.has(u))) {
      this.drawn.delete(uri); // VS Code drops a hidden editor's decorations
    }
    for (const editor of vscode.window.visibleTextEditors) {
      this.draw(editor);
    }
  }

  private draw(editor: vscode.TextEditor): void {
    const doc = editor.document;
    const uri = doc.uri.toString();
    const payload = this.on ? this.store.drawable(uri, doc.version) : undefined;
    if (payload === undefined) {
      for (const bucket of BUCKETS) {
        editor.setDecorations(this.types[bucket], []);
      }
      this.drawn.delete(uri);
      return;
    }
    const threshold = vscode.workspace.getConfiguration("refscore", doc.uri).get<number>("weakTokens.threshold", WEAK_TOKEN_THRESHOLD);
    const plan = planHeat(payload, threshold, { lineCount: doc.lineCount, lineLength: (line) => doc.lineAt(line).text.length });
    for (const bucket of BUCKETS) {
      editor.setDecorations(this.types[bucket], plan[bucket].map(toRange));
    }
    this.drawn.set(uri, { version: payload.version, counts: planCounts(plan) });
  }

  /** What is drawn on a document now (for the test harness and the log). */
  drawnOn(uri: string): DrawnHeat | undefined {
    return this.drawn.get(uri);
  }

  dispose(): void {
    for (const bucket of BUCKETS) {
      this.types[bucket].dispose();
    }
  }
}
