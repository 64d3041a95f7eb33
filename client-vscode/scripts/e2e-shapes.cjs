// The shapes the e2e checks read in the status item and the code lenses: `Label 0.33` parts joined
// by " · ". A check names the labels it needs; other parts (a new leading number) are allowed, a
// label without its number, or any part that reads n/a, is not. Unit-tested in test/e2eShapes.test.ts.
"use strict";

const NUMBER = /^-?\d\.\d\d$/;

/** `RefScore 0.33 · CodeBLEU 0.34 · F3 0.81` -> [["RefScore", "0.33"], ["CodeBLEU", "0.34"], ["F3", "0.81"]]; a part without a trailing value gets "". */
function scoreParts(text) {
  return String(text ?? "").split(" · ").map((part) => {
    const match = /^(.*\S) (\S+)$/.exec(part.trim());
    return match ? [match[1], match[2]] : [part.trim(), ""];
  });
}

/** Every label in `labels` is a part with a number, no part reads n/a, and each `also` text is a part. */
function showsNumbers(text, labels, also = []) {
  const parts = scoreParts(text);
  const joined = parts.map(([label, value]) => `${label} ${value}`.trim());
  return parts.length > 0 && !parts.some(([, value]) => value === "n/a") &&
    labels.every((label) => parts.some(([l, value]) => l === label && NUMBER.test(value))) &&
    also.every((part) => joined.includes(part));
}

/** The status item: `$(beaker) ` then parts showing `labels` with numbers (and the `also` parts). */
function statusShows(text, labels, also = []) {
  const match = /^\$\(beaker\) (.+)$/.exec(String(text ?? ""));
  return match !== null && showsNumbers(match[1], labels, also);
}

/** A code lens title: `RefScore: <parts> vs <function> (<how>)` with `labels` numbered. */
function lensShows(title, labels, how = "same name") {
  const match = /^RefScore: (.+) vs \w+ \((.+)\)$/.exec(String(title ?? ""));
  return match !== null && match[2] === how && showsNumbers(match[1], labels);
}

module.exports = { scoreParts, showsNumbers, statusShows, lensShows };
