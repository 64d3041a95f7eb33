"""Behaviour of JavaScript and TypeScript code under node, end to end in the real sandbox:
agreement, counter-examples, missing functions, broken and endless candidates, program mode,
TypeScript, inputs files; and, without a sandbox, how inputs are read from a reference and how
TypeScript becomes JavaScript."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from refscore.behaviour import BehaviourSettings, run_behaviour
from refscore.behaviour.calls import Call
from refscore.behaviour.inputs.javascript_examples import read_calls, read_shapes
from refscore.behaviour.inputs.js_literals import js_arguments
from refscore.behaviour.js_script import commonjs, reads_stdin
from refscore.behaviour.inputs.teacher_file import InputsFileError
from refscore.behaviour.js_typescript import TypeScriptError, strip_types

_NODE = shutil.which("node")
needs_sandbox = pytest.mark.skipif(shutil.which("bwrap") is None or _NODE is None,
                                   reason="behaviour of JavaScript needs bubblewrap (bwrap) and node, "
                                          f"missing here: {'bwrap' if shutil.which('bwrap') is None else 'node'}")

RANGE_SUM = '''/**
 * Sum of the whole numbers from lo to hi, both included.
 * @example rangeSum(1, 4) // => 10
 * rangeSum(3, 3) ==> 3
 */
function rangeSum(lo, hi) {
  let total = 0;
  for (let i = lo; i <= hi; i++) total += i;
  return total;
}

// > countWords("a b  a")
const countWords = (text) => {
  const counts = {};
  for (const word of text.split(" ").filter((w) => w.length > 0)) counts[word] = (counts[word] || 0) + 1;
  return counts;
};

console.log(rangeSum(2, 5));
module.exports = { rangeSum, countWords };
'''

REWRITE = '''const rangeSum = function (lo, hi) {
  return hi < lo ? 0 : ((hi - lo + 1) * (lo + hi)) / 2;
};
function countWords(s) {
  return s.split(/ +/).filter(Boolean).reduce((m, w) => ({ ...m, [w]: (m[w] ?? 0) + 1 }), {});
}
'''


def behaviour(reference: str, candidate: str, language: str = "javascript", **settings):
    return run_behaviour(reference, candidate, language, BehaviourSettings(**settings))


# --- end to end, in the sandbox ------------------------------------------------------------


@needs_sandbox
def test_a_correct_rewrite_in_another_style_agrees_everywhere() -> None:
    result = behaviour(RANGE_SUM, REWRITE)
    assert result.ran and result.agreement == 1.0 and not result.disagreements
    assert {f.name for f in result.functions} == {"rangeSum", "countWords"}
    assert result.inputs >= 20  # the examples, the top-level call, their boundaries and mutants
    assert result.signature.startswith("behaviour|lang:javascript|mode:function|inputs:")
    assert re.search(rf"\|n:{result.inputs}\|seed:0\|sandbox:bwrap\|node:\d+\|version:1$", result.signature)


@needs_sandbox
def test_less_than_for_at_most_disagrees_with_a_true_counter_example() -> None:
    result = behaviour(RANGE_SUM, RANGE_SUM.replace("i <= hi", "i < hi"))
    assert 0 < result.agreement < 1
    first = result.disagreements[0]
    assert (first.function, first.input, first.expected, first.actual, first.reason) == (
        "rangeSum", "rangeSum(1, 4)", "10", "6", "different result")
    counts = {f.name: (f.inputs, f.agreed) for f in result.functions}
    assert counts["countWords"][0] == counts["countWords"][1]  # the other function still agrees


@needs_sandbox
def test_an_off_by_one_start_disagrees_in_javascript_notation() -> None:
    result = behaviour(RANGE_SUM, RANGE_SUM.replace("let i = lo;", "let i = lo + 1;"))
    first = result.disagreements[0]
    assert (first.input, first.expected, first.actual) == ("rangeSum(1, 4)", "10", "9")
    words = behaviour(RANGE_SUM, RANGE_SUM.replace("counts[word] = (counts[word] || 0) + 1", "counts[word] = 1"))
    first = words.disagreements[0]
    assert (first.function, first.input, first.expected, first.actual) == (
        "countWords", 'countWords("a b  a")', "{a: 2, b: 1}", "{a: 1, b: 1}")


@needs_sandbox
def test_a_missing_function_is_its_own_reason() -> None:
    result = behaviour(RANGE_SUM, "function rangeSum(a, b) { let t = 0; for (let i = a; i <= b; i++) t += i; return t }")
    counts = {f.name: (f.inputs, f.agreed) for f in result.functions}
    assert counts["rangeSum"][0] == counts["rangeSum"][1] > 0
    assert counts["countWords"][1] == 0
    assert {d.reason for d in result.disagreements if d.function == "countWords"} == {"missing function"}


@needs_sandbox
def test_a_syntax_error_is_one_line_without_a_traceback() -> None:
    result = behaviour(RANGE_SUM, "function rangeSum(lo, hi) {\n  return lo +\n}\n")
    assert result.ran and result.agreement == 0.0
    reasons = {d.reason for d in result.disagreements}
    assert len(reasons) == 1
    (reason,) = reasons
    assert reason.startswith("does not parse: SyntaxError at line 3") and "\n" not in reason
    assert "at " not in reason.split("(")[-1]  # node's stack is not shown


@needs_sandbox
def test_an_endless_loop_is_a_timeout_and_the_run_ends_soon() -> None:
    candidate = REWRITE.replace("return hi < lo", "while (true) {}\n  return hi < lo")
    behaviour(RANGE_SUM, REWRITE)  # the reference's plan, apart
    started = time.monotonic()
    behaviour(RANGE_SUM, REWRITE)
    runs = time.monotonic() - started  # a quick candidate's run (about a second), at this machine's pace
    started = time.monotonic()
    result = behaviour(RANGE_SUM, candidate)
    elapsed = time.monotonic() - started
    assert elapsed < 2 * runs + 7, (elapsed, runs)  # the calls' own limits, not the run's wall (slack: the pace)
    timeouts = [d for d in result.disagreements if d.function == "rangeSum"]
    assert timeouts and {d.reason for d in timeouts} == {"timeout"} and timeouts[0].actual == "timeout"
    counts = {f.name: (f.inputs, f.agreed) for f in result.functions}
    assert counts["countWords"][0] == counts["countWords"][1]  # the candidate's other function still ran


@needs_sandbox
def test_values_are_tagged_and_shown_as_javascript() -> None:
    reference = ("function shapes(n) {\n  return [n / 2, null, undefined, 'x', new Set([n]), new Map([['k', n]]),"
                 " n > 1, 2n ** 70n, NaN];\n}\n// shapes(3)\n")
    candidate = reference.replace("n > 1", "n < 1")
    result = behaviour(reference, candidate)
    assert result.ran and result.agreement < 1
    first = next(d for d in result.disagreements if d.input == "shapes(3)")
    assert first.expected == ('[1.5, null, undefined, "x", Set(1) {3}, {"k": 3}, true, 1180591620717411303424, NaN]'
                              .replace('{"k": 3}', "{k: 3}"))
    assert first.actual.endswith("false, 1180591620717411303424, NaN]")


@needs_sandbox
def test_program_mode_gives_both_the_same_stdin() -> None:
    reference = ('const n = Number(require("fs").readFileSync(0, "utf8").trim() || 0);\n'
                 'let s = 0;\nfor (let i = 1; i <= n; i++) s += i;\nconsole.log("sum", s);\n')
    good = ('let text = "";\nprocess.stdin.on("data", (d) => (text += d));\n'
            'process.stdin.on("end", () => { const n = parseInt(text) || 0; console.log(`sum ${n * (n + 1) / 2}`); });\n')
    inputs = "3\n---\n10\n---\n0\n"
    result = behaviour(reference, good, inputs=inputs)
    assert result.mode == "program" and result.agreement == 1.0 and result.inputs == 3
    assert result.signature.startswith("behaviour|lang:javascript|mode:program|")
    bad = behaviour(reference, good.replace("n + 1", "n - 1"), inputs=inputs)
    first = bad.disagreements[0]
    assert (first.input, first.expected, first.actual, first.reason) == (
        "stdin '3\\n'", "'sum 6'", "'sum 3'", "different output")
    broken = behaviour(reference, 'console.log("sum 0"\n', inputs=inputs)
    assert {d.reason for d in broken.disagreements} == {
        "does not parse: SyntaxError at line 1 (missing ) after argument list)"}


TS_REFERENCE = '''interface Point { x: number; y: number }
type Metric = (a: Point, b: Point) => number;

/** manhattan({x: 0, y: 0}, {x: 3, y: -4}) => 7 */
export const manhattan: Metric = (a, b) => Math.abs(a.x - b.x) + Math.abs(a.y - b.y);

export function largest(xs: number[]): number | null {
  let best: number | null = null;
  for (const x of xs) if (best === null || x > best) best = x;
  return best;
}

enum Unit { One = 1, Two }
class Scaler<T extends number> {
  constructor(private readonly by: T) {}
  scale(x: number): number { return x * this.by * Unit.One; }
}
'''


@needs_sandbox
def test_typescript_reference_and_candidate() -> None:
    candidate = '''export function manhattan(p: {x: number, y: number}, q: {x: number, y: number}): number {
  return [p.x - q.x, p.y - q.y].map((d) => (d < 0 ? -d : d)).reduce((s, d) => s + d, 0);
}
export const largest = (xs: Array<number>) => xs.length ? Math.max(...xs) : null;
'''
    result = behaviour(TS_REFERENCE, candidate, "typescript")
    assert result.ran and result.agreement == 1.0, result.disagreements
    assert {f.name for f in result.functions} == {"manhattan", "largest"}
    assert result.signature.startswith("behaviour|lang:typescript|mode:function|")
    assert {f.name: f.inputs for f in result.functions}["largest"] > 5  # typed inputs from number[]
    wrong = behaviour(TS_REFERENCE, candidate.replace("xs.length ? Math.max(...xs)", "xs.length ? xs[0]!"),
                      "typescript")
    assert 0 < wrong.agreement < 1
    assert {d.function for d in wrong.disagreements} == {"largest"}
    broken = behaviour(TS_REFERENCE, "export function manhattan(a: Point {", "typescript")
    assert {d.reason for d in broken.disagreements} == {"does not parse: SyntaxError at line 1"}


@needs_sandbox
def test_typescript_that_cannot_be_turned_says_so_in_one_line() -> None:
    result = behaviour("namespace Geometry { export const one = 1; }\nexport function f(x: number) { return x; }\n",
                       "function f(x) { return x; }", "typescript")
    assert not result.ran
    assert result.summary() == "not run: could not turn TypeScript into JavaScript (namespaces are not supported)"


@needs_sandbox
def test_an_inputs_file_in_javascript_syntax() -> None:
    reference = "function median(xs) {\n  const s = [...xs].sort((a, b) => a - b);\n  const m = s.length >> 1;\n" \
                "  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;\n}\n"
    inputs = "// the teacher's cases\nmedian([3, 1, 2]);\nmedian([4, 1, 3, 2])\nmedian([10, 2, 33])\n"
    candidate = "function median(xs) {\n  const s = xs.sort();\n  return s[Math.floor(s.length / 2)];\n}\n"
    result = behaviour(reference, candidate, inputs=inputs)
    assert result.ran and result.agreement < 1
    failing = {d.input: (d.expected, d.actual) for d in result.disagreements}
    assert failing["median([4, 1, 3, 2])"] == ("2.5", "3")
    assert failing["median([10, 2, 33])"] == ("10", "2")  # sort() without a comparator sorts as text
    assert behaviour(reference, candidate, inputs="mean([1])").summary() == (
        "not run: inputs line 1: the reference has no function mean")


@needs_sandbox
def test_a_built_in_of_the_same_name_is_no_function_of_the_program() -> None:
    from refscore.behaviour.runners import javascript as runner
    from refscore.behaviour.sandbox import find_sandbox

    calls = [Call("escape", "'a b'"), Call("toString", ""), Call("half", "3")]
    load, records = runner.run_calls(find_sandbox(), "const half = (x) => x / 2;", calls, 0.5, 10)
    assert load == {"load": "ok"}
    assert [r.get("missing", r.get("v")) for r in records] == [True, True, ["f", 1.5]]
    load, records = runner.run_calls(find_sandbox(), "function escape(s) { return `<${s}>`; }", calls[:1], 0.5, 10)
    assert records[0]["v"] == ["s", "<a b>"]


def test_without_node_javascript_is_not_available(monkeypatch: pytest.MonkeyPatch) -> None:
    from refscore.behaviour import javascript_behaviour
    from refscore.behaviour.runners import javascript as runner
    from refscore.behaviour.sandbox import Sandbox

    monkeypatch.setattr(runner, "node_path", lambda: None)
    result = javascript_behaviour.RUNNERS["javascript"](Sandbox("none"), RANGE_SUM, REWRITE, BehaviourSettings())
    assert result.summary() == "not run: not available for javascript: node is not installed"


# --- reading the reference, without running anything ---------------------------------------


def test_functions_and_example_calls_are_read_from_every_usual_form() -> None:
    source = '''/** @example add(1, 2) // => 3 */
function add(a, b = 0, ...more) { return a + b; }
const half = x => x / 2;
let twice = function (s) { return s + s; };
// half(-4.5) ==> -2.25
/*
 * > twice("ab")
 * twice(word) is the word twice
 */
module.exports = { add, plus: add, inc(n) { return n + 1; } };
exports.neg = (n) => -n;
console.log(add([1, {k: null}], 'x\\n'), half(undefined), twice(someVariable));
'''
    shapes = read_shapes(source)
    assert set(shapes.functions) == {"add", "half", "twice", "plus", "inc", "neg"}
    add = shapes.functions["add"]
    assert (add.parameters, add.required, add.variadic) == (("a", "b"), 1, True)
    calls = [(c.function, c.args, c.origin, c.values) for c in shapes.calls]
    assert ("add", "1, 2", "example", (1, 2)) in calls
    assert ("half", "-4.5", "example", (-4.5,)) in calls
    assert ("twice", '"ab"', "example", ("ab",)) in calls
    assert ("add", "[1, {k: null}], 'x\\n'", "main", ([1, {"k": None}], "x\n")) in calls
    assert ("half", "undefined", "main", None) in calls  # runs, but is no literal to mutate
    assert not any(c.function == "twice" and "word" in c.args for c in shapes.calls)  # prose
    assert not any("someVariable" in c.args for c in shapes.calls)


def test_made_values_go_back_as_javascript_literals() -> None:
    assert js_arguments([1, -2.5, "a\"b", [True, None], {"x": 1, "two words": [], "__proto__": 0}, (1, 2)]) == (
        '1, -2.5, "a\\"b", [true, null], {x: 1, "two words": [], ["__proto__"]: 0}, [1, 2]')
    assert js_arguments([float("nan"), 3.0, 1e-7]) == "NaN, 3, 1e-07"


def test_an_inputs_file_is_checked_line_by_line() -> None:
    calls = read_calls("# cases\nf(1, [2, 3]);\n// more\nf({a: 1}, 'x\\u0041')\n", {"f"})
    assert calls == [Call("f", "1, [2, 3]", "file", (1, [2, 3])), Call("f", "{a: 1}, 'x\\u0041'", "file", ({"a": 1}, "xA"))]
    with pytest.raises(InputsFileError, match="line 2: not a call"):
        read_calls("f(1)\nf(1\n", {"f"})
    with pytest.raises(InputsFileError, match="line 1: the reference has no function g"):
        read_calls("g(1)", {"f"})


def test_modules_become_scripts_with_lines_kept() -> None:
    source = ("import fs from 'fs';\nimport { a, b as c } from './x';\nimport * as ns from 'y';\n"
              "export function f() {}\nexport default (x) => x;\nexport { f as g };\n")
    script = commonjs(source)
    assert script.splitlines() == [
        "const fs = require('fs');",
        "const {a, b: c} = (() => { try { return require('./x'); } catch (e) { return {}; } })();",  # absent here
        "const ns = require('y');",
        "       function f() {}", "module.exports.default = (x) => x;", "Object.assign(module.exports, {g: f});"]
    assert commonjs("function f() {}\n") == "function f() {}\n"
    assert reads_stdin("const t = require('fs').readFileSync(0, 'utf8');")
    assert reads_stdin("process.stdin.on('data', f)") and not reads_stdin("function f() {}")


def test_typescript_types_are_removed_and_lines_kept() -> None:
    stripped = strip_types(TS_REFERENCE)
    javascript = stripped.javascript
    assert len(javascript.splitlines()) == len(TS_REFERENCE.splitlines())
    for gone in ("interface", "type Metric", ": number", "private", "readonly", "<T extends number>", ": Metric"):
        assert gone not in javascript
    assert "this.by = by;" in javascript and "var Unit = " in javascript
    assert stripped.types["largest"] == ("list[int]",)
    more = strip_types("let v = <number>q as unknown as number;\nlet w = x!.y satisfies Y;\nclass A implements B {\n"
                       "  declare z: number;\n  m?(): void;\n  n(a?: string): void {}\n}\nfunction g(this: A, k: string) {}\n")
    assert more.javascript.split() == ["let", "v", "=", "q", ";", "let", "w", "=", "x", ".y", ";", "class", "A",
                                       "{", ";", ";", "n(a", ")", "{}", "}", "function", "g(", "k", ")", "{}"]
    assert strip_types('import { type A, B } from "./b";\n').javascript.split() == ["import", "{", "B", "}", "from",
                                                                                  '"./b";']
    with pytest.raises(TypeScriptError) as error:
        strip_types("function f(a: number {")
    assert error.value.syntax and error.value.line == 1
