import assert from "node:assert/strict";
import { test } from "node:test";
import { textLines, toPlainRange } from "../src/ranges";

const r = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

test("a range inside the text is kept as is", () => {
  assert.deepEqual(toPlainRange(r(1, 2, 1, 5), textLines("ab\ncdefg\n")), { startLine: 1, startCharacter: 2, endLine: 1, endCharacter: 5 });
});

test("characters count UTF-16 code units, like LSP and VS Code", () => {
  // "😀" is two UTF-16 code units, so "name" starts at character 11, not 10
  const doc = textLines("s = '😀' + name");
  const range = toPlainRange(r(0, 11, 0, 15), doc);
  assert.deepEqual(range, { startLine: 0, startCharacter: 11, endLine: 0, endCharacter: 15 });
  assert.equal("s = '😀' + name".slice(11, 15), "name");
});

test("ends past a line or past the text are clamped; ranges past the text are dropped", () => {
  const doc = textLines("abc\nde");
  assert.deepEqual(toPlainRange(r(0, 1, 0, 99), doc), { startLine: 0, startCharacter: 1, endLine: 0, endCharacter: 3 });
  assert.deepEqual(toPlainRange(r(1, 0, 5, 2), doc), { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 2 });
  assert.equal(toPlainRange(r(2, 0, 2, 1), doc), undefined);
  assert.equal(toPlainRange(r(0, 5, 0, 9), doc), undefined); // starts past the line's end: empty after clamping
});

test("empty and reversed ranges are dropped", () => {
  const doc = textLines("abc\ndef");
  assert.equal(toPlainRange(r(0, 1, 0, 1), doc), undefined);
  assert.equal(toPlainRange(r(1, 2, 0, 1), doc), undefined);
});

test("multi-line ranges survive; \\r\\n line ends do not count as characters", () => {
  const doc = textLines("ab\r\ncd\r\n");
  assert.equal(doc.lineCount, 3);
  assert.deepEqual(toPlainRange(r(0, 1, 1, 9), doc), { startLine: 0, startCharacter: 1, endLine: 1, endCharacter: 2 });
});
