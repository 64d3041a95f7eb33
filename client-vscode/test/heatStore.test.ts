import assert from "node:assert/strict";
import { test } from "node:test";
import { HeatStore } from "../src/heatStore";

const payload = (version: number, uri = "file:///a.py") => ({ uri, version, tokens: [] });

test("a payload for an older version than the document is stale", () => {
  const store = new HeatStore();
  assert.equal(store.accept(payload(4), 5), "stale");
  assert.equal(store.latest("file:///a.py"), undefined);
  assert.equal(store.accept(payload(5), 5), "accepted");
  assert.equal(store.drawable("file:///a.py", 5)?.version, 5);
});

test("a payload older than the one kept is refused (out of order)", () => {
  const store = new HeatStore();
  assert.equal(store.accept(payload(7), undefined), "accepted");
  assert.equal(store.accept(payload(6), undefined), "stale");
  assert.equal(store.latest("file:///a.py")?.version, 7);
  assert.equal(store.accept(payload(7), 7), "accepted"); // the same version again replaces it
});

test("only a payload for exactly the document's version is drawn", () => {
  const store = new HeatStore();
  store.accept(payload(2), 2);
  assert.ok(store.drawable("file:///a.py", 2));
  assert.equal(store.drawable("file:///a.py", 3), undefined); // edited since: the ranges may be wrong
  assert.equal(store.drawable("file:///b.py", 2), undefined);
  store.forget("file:///a.py");
  assert.equal(store.drawable("file:///a.py", 2), undefined);
});

test("documents are kept apart", () => {
  const store = new HeatStore();
  store.accept(payload(9, "file:///a.py"), 9);
  assert.equal(store.accept(payload(1, "file:///b.py"), 1), "accepted");
  store.clear();
  assert.equal(store.latest("file:///a.py"), undefined);
});
