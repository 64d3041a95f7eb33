/** LSP ranges to editor ranges that are safe to draw: clamped to the document, empty ones dropped. */

import type { LspRange } from "./protocol";

/** What range conversion needs to know about a document (a vscode.TextDocument has both). */
export interface LineSource {
  readonly lineCount: number;
  lineLength(line: number): number;
}

/** A range in UTF-16 code units, the unit both LSP (by default) and VS Code use. */
export interface PlainRange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

/**
 * The part of `range` that lies inside the document, or undefined when nothing does (a range from
 * a longer version of the text, or an empty one). Characters past a line's end are clamped to it.
 */
export function toPlainRange(range: LspRange, doc: LineSource): PlainRange | undefined {
  const last = doc.lineCount - 1;
  if (last < 0 || range.start.line > last) {
    return undefined;
  }
  const startLine = range.start.line;
  const startCharacter = Math.min(range.start.character, doc.lineLength(startLine));
  let endLine = range.end.line;
  let endCharacter = range.end.character;
  if (endLine > last) {
    endLine = last;
    endCharacter = doc.lineLength(last);
  } else {
    endCharacter = Math.min(endCharacter, doc.lineLength(endLine));
  }
  if (endLine < startLine || (endLine === startLine && endCharacter <= startCharacter)) {
    return undefined;
  }
  return { startLine, startCharacter, endLine, endCharacter };
}

/** A `LineSource` over plain text (lines split on \r\n, \r or \n), for callers without an editor. */
export function textLines(text: string): LineSource {
  const lines = text.split(/\r\n|\r|\n/);
  return { lineCount: lines.length, lineLength: (line) => lines[line]?.length ?? 0 };
}
