import assert from "node:assert/strict";
import { test } from "node:test";
import { LANGUAGES } from "../src/languages.generated";
import { documentSelector } from "../src/selector";

test("unsaved untitled buffers are scored as well as files, in every language the server knows", () => {
  const selector = documentSelector();
  const has = (scheme: string, language: string) => selector.some((s) => s.scheme === scheme && s.language === language);
  for (const language of LANGUAGES) {
    assert.ok(has("file", language), `file ${language}`);
    assert.ok(has("untitled", language), `untitled ${language}`); // the server finds their reference by pragma or Set Reference
  }
  // other schemes name no text the server can read a reference for (a git: revision, an output channel)
  assert.deepEqual([...new Set(selector.map((s) => s.scheme))].sort(), ["file", "untitled"]);
});
