import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocumentStatus } from "../src/protocol";
import { fileState, isBusy, statusText, statusTooltip, baseName, NO_REFERENCE_TEXT, noReferenceTooltip, STOPPED_TEXT, stoppedTooltip } from "../src/summary";

const summaryDiagnostic = (data: Record<string, unknown>) => ({
  code: "refscore.summary",
  message: "RefScore vs fizz.ref.py (convention): CodeBLEU 0.64 (...)",
  data,
});

const done = {
  version: 4,
  references: ["file:///w/fizz.ref.py"],
  referenceSource: "convention",
  codebertscoreState: "done",
  codebleu: { score: 0.6412, signature: "s", components: { ngram_match: 0.48, weighted_ngram_match: 0.49, syntax_match: 0.66, dataflow_match: null } },
  codebertscore: { precision: 0.83, recall: 0.81, f1: 0.82, f3: 0.8123, model: "all-MiniLM-L6-v2", layer: 6, signature: "t" },
};

test("the summary diagnostic's data becomes the file's state", () => {
  const weak = { code: "refscore.weak-token", message: "weak", data: { similarity: 0.2 } };
  const state = fileState([weak, summaryDiagnostic(done)]);
  assert.ok(state && state.kind === "summary");
  assert.equal(state.version, 4);
  assert.equal(state.codebleu?.score, 0.6412);
  assert.equal(state.codebleu?.components.dataflow_match, null);
  assert.equal(state.codebertscore?.f3, 0.8123);
  assert.equal(state.codebertscore?.model, "all-MiniLM-L6-v2");
  assert.deepEqual(state.references, ["file:///w/fizz.ref.py"]);
});

test("a code given as {value} (how VS Code may hand it over) is read too", () => {
  const state = fileState([{ ...summaryDiagnostic(done), code: { value: "refscore.summary", target: "x" } }]);
  assert.equal(state?.kind, "summary");
});

test("no RefScore diagnostics: no state; a problem diagnostic: a problem", () => {
  assert.equal(fileState([]), undefined);
  assert.equal(fileState([{ code: "E501", message: "line too long" }]), undefined);
  const problem = fileState([{ code: "refscore.problem", message: "reference fizz.ref.py is missing", data: { version: 2 } }]);
  assert.deepEqual(problem, { kind: "problem", version: 2, message: "reference fizz.ref.py is missing" });
});

test("busy while the text is newer than the scores or CodeBERTScore is pending", () => {
  const state = fileState([summaryDiagnostic(done)]);
  assert.equal(isBusy(state, 4), false);
  assert.equal(isBusy(state, 5), true);
  const pending = fileState([summaryDiagnostic({ ...done, codebertscoreState: "pending", codebertscore: undefined })]);
  assert.equal(isBusy(pending, 4), true);
  assert.equal(isBusy(undefined, 9), false);
});

test("status text shows CodeBLEU and F3, with a spinner when busy", () => {
  const state = fileState([summaryDiagnostic(done)]);
  assert.ok(state);
  assert.equal(statusText(state, false), "$(beaker) CodeBLEU 0.64 · F3 0.81");
  assert.equal(statusText(state, true), "$(sync~spin) CodeBLEU 0.64 · F3 0.81");
  const pending = fileState([summaryDiagnostic({ ...done, codebertscoreState: "pending", codebertscore: undefined })]);
  assert.ok(pending);
  assert.equal(statusText(pending, true), "$(sync~spin) CodeBLEU 0.64 · F3 …");
  const off = fileState([summaryDiagnostic({ ...done, codebertscoreState: "off", codebertscore: undefined })]);
  assert.ok(off);
  assert.equal(statusText(off, false), "$(beaker) CodeBLEU 0.64");
});

test("base names are decoded", () => {
  assert.equal(baseName("file:///w/my%20ref.py"), "my ref.py");
  assert.equal(baseName("file:///w/ref.py#L3"), "ref.py");
});

test("status text says CodeBERTScore needs setting up (instead of F3) when the interpreter lacks it", () => {
  const codebleuOnly = fileState([summaryDiagnostic({ ...done, codebertscoreState: "off", codebertscore: undefined })]);
  assert.ok(codebleuOnly);
  assert.equal(statusText(codebleuOnly, false, true), "$(beaker) CodeBLEU 0.64 · CodeBERTScore: set up");
  assert.equal(statusText(codebleuOnly, false), "$(beaker) CodeBLEU 0.64");
  assert.match(statusTooltip(codebleuOnly, false, true), /RefScore: Set Up CodeBERTScore/);
});

test("the combined RefScore number leads the status text when the server sent it", () => {
  const refscore = { score: 0.7123, signature: "refscore|fit:x", strongest: [{ input: "cbs_r", text: "CodeBERTScore recall 0.810", contribution: 0.41 }, { text: 5 }] };
  const state = fileState([summaryDiagnostic({ ...done, refscore })]);
  assert.ok(state && state.kind === "summary");
  assert.deepEqual(state.refscore?.strongest, [{ text: "CodeBERTScore recall 0.810", contribution: 0.41 }]);
  assert.equal(statusText(state, false), "$(beaker) RefScore 0.71 · CodeBLEU 0.64 · F3 0.81");
  const broken = fileState([summaryDiagnostic({ ...done, refscore: { score: "high" } })]);
  assert.ok(broken && broken.kind === "summary" && broken.refscore === undefined);
});

test("base names show control and bidi characters of a file name as markers", () => {
  // bidi_<U+202E>cod.py would display as bidi_yp.doc; %1B an ESC
  assert.equal(baseName("file:///w/bidi_%E2%80%AEcod.py"), "bidi_<U+202E>cod.py");
  assert.equal(baseName("file:///w/a%1B%5B2Jb.py"), "a<U+001B>[2Jb.py");
});

test("with no server the status item says it stopped and why, never a score", () => {
  assert.match(STOPPED_TEXT, /RefScore: stopped/);
  assert.doesNotMatch(STOPPED_TEXT, /\d/);
  assert.match(stoppedTooltip("it exited"), /not running: it exited/);
  assert.match(stoppedTooltip(undefined), /not running\./);
  assert.match(stoppedTooltip(undefined), /Restart Server/);
});

test("the state says why the combined number is withheld and why CodeBERTScore was skipped", () => {
  const state = fileState([summaryDiagnostic({ ...done, codebertscore: undefined, codebertscoreState: "skipped",
    codebertscoreNote: "CodeBERTScore skipped: text of 300000 characters", refscoreWithheld: "the reference has 2,000 tokens" })]);
  assert.ok(state && state.kind === "summary");
  assert.equal(state.refscore, undefined);
  assert.equal(state.refscoreWithheld, "the reference has 2,000 tokens");
  assert.equal(state.bertNote, "CodeBERTScore skipped: text of 300000 characters");
  assert.ok(!statusText(state, false).includes("RefScore 0"));
});

test("a file with no reference: the status item offers Set Reference...", () => {
  const told = parseDocumentStatus({ uri: "file:///w/a.py", version: 2, state: "noReference", message: "No reference for a.py: RefScore: Set Reference... chooses one" });
  assert.deepEqual(told, { uri: "file:///w/a.py", version: 2, state: "noReference", message: "No reference for a.py: RefScore: Set Reference... chooses one" });
  assert.equal(parseDocumentStatus({ uri: 3, state: "noReference", message: "m" }), undefined);
  assert.equal(parseDocumentStatus("noReference"), undefined);
  assert.match(NO_REFERENCE_TEXT, /no reference/);
  assert.match(noReferenceTooltip(told?.message ?? ""), /^No reference for a\.py.*\n\nClick to choose the reference \(RefScore: Set Reference\.\.\.\)\.$/s);
});
