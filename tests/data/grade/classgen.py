"""Generate a small class for grading tests: two problems (Python files, Java per-folder
submissions), correct variants, a copy of the reference, and broken submissions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

PY_REFERENCE = '''def running_max(values):
    """Return the running maximum of a list of numbers."""
    result = []
    best = None
    for value in values:
        if best is None or value > best:
            best = value
        result.append(best)
    return result
'''

PY_STYLES = {
    "loop": '''def running_max({xs}):
    {out} = []
    {top} = None
    for {x} in {xs}:
        if {top} is None or {x} > {top}:
            {top} = {x}
        {out}.append({top})
    return {out}
''',
    "index": '''def running_max({xs}):
    {out} = []
    for i in range(len({xs})):
        {x} = {xs}[i]
        if i == 0 or {x} > {out}[-1]:
            {out}.append({x})
        else:
            {out}.append({out}[-1])
    return {out}
''',
    "accumulate": '''from itertools import accumulate


def running_max({xs}):
    return list(accumulate({xs}, max))
''',
    "while": '''def running_max({xs}):
    {out} = []
    i = 0
    {top} = None
    while i < len({xs}):
        {x} = {xs}[i]
        {top} = {x} if {top} is None else max({top}, {x})
        {out}.append({top})
        i += 1
    return {out}
''',
}
PY_NAMES = [dict(xs="values", out="result", top="best", x="value"),
            dict(xs="nums", out="out", top="m", x="n"),
            dict(xs="data", out="maxes", top="current", x="item"),
            dict(xs="a", out="r", top="hi", x="v")]

JAVA_REFERENCE = '''public class Solution {
    public static int sumEven(int[] numbers) {
        int total = 0;
        for (int n : numbers) {
            if (n % 2 == 0) {
                total += n;
            }
        }
        return total;
    }
}
'''

JAVA_STYLES = {
    "foreach": '''public class Solution {{
    public static int sumEven(int[] {xs}) {{
        int {acc} = 0;
        for (int {x} : {xs}) {{
            if ({x} % 2 == 0) {{
                {acc} += {x};
            }}
        }}
        return {acc};
    }}
}}
''',
    "index": '''public class Solution {{
    public static int sumEven(int[] {xs}) {{
        int {acc} = 0;
        for (int i = 0; i < {xs}.length; i++) {{
            if ({xs}[i] % 2 == 0) {acc} = {acc} + {xs}[i];
        }}
        return {acc};
    }}
}}
''',
    "stream": '''import java.util.Arrays;

public class Solution {{
    public static int sumEven(int[] {xs}) {{
        return Arrays.stream({xs}).filter({x} -> {x} % 2 == 0).sum();
    }}
}}
''',
}
JAVA_NAMES = [dict(xs="numbers", acc="total", x="n"), dict(xs="arr", acc="sum", x="k"),
              dict(xs="values", acc="s", x="v")]

PY_CONTEXT = "Return the running maximum of a list of numbers."
JAVA_CONTEXT = "Return the sum of the even numbers in the array."


@dataclass
class GeneratedClass:
    """Where things are and what each submission id should turn out as."""

    root: Path
    mapping: Path
    expected: dict[str, str] = field(default_factory=dict)  # id -> "ok" | "copy" | "warn" | "error:<text>"

    @property
    def errors(self) -> dict[str, str]:
        return {k: v[6:] for k, v in self.expected.items() if v.startswith("error:")}

    @property
    def scored(self) -> list[str]:
        return [k for k, v in self.expected.items() if not v.startswith("error:")]


def make_class(root: Path) -> GeneratedClass:
    """Write the class under ``root`` and return its description."""
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "running_max.py").write_text(PY_REFERENCE)
    (root / "refs" / "Solution.java").write_text(JAVA_REFERENCE)
    py, java = root / "python", root / "java"
    py.mkdir()
    java.mkdir()
    gen = GeneratedClass(root, root / "class.toml")
    student = 0
    for style, template in PY_STYLES.items():
        for names in PY_NAMES:
            student += 1
            name = f"s{student:02d}_{style}.py"
            (py / name).write_text(template.format(**names))
            gen.expected[f"running_max/python/{name}"] = "ok"
    (py / "copy.py").write_text(PY_REFERENCE)
    gen.expected["running_max/python/copy.py"] = "copy"
    (py / "syntax.py").write_text("def running_max(values:\n    return [max(values[:i+1]) for i in range(len(values)\n")
    gen.expected["running_max/python/syntax.py"] = "warn"
    (py / "empty.py").write_text("  \n")
    gen.expected["running_max/python/empty.py"] = "error:empty"
    (py / "binary.py").write_bytes(b"\x7fELF\x00\x00\x01\x02" * 20)
    gen.expected["running_max/python/binary.py"] = "error:binary"
    (py / "latin1.py").write_bytes("# café\ndef running_max(v):\n    return v\n".encode("latin-1"))
    gen.expected["running_max/python/latin1.py"] = "error:UTF-8"
    (py / "Wrong.java").write_text(JAVA_REFERENCE)
    gen.expected["running_max/python/Wrong.java"] = "error:wrong language"
    (py / "notes.txt").write_text("I could not finish.\n")
    gen.expected["running_max/python/notes.txt"] = "error:cannot tell the language"
    for style, template in JAVA_STYLES.items():
        for names in JAVA_NAMES:
            student += 1
            folder = java / f"s{student:02d}_{style}"
            folder.mkdir()
            (folder / "Solution.java").write_text(template.format(**names))
            gen.expected[f"sum_even/java/{folder.name}"] = "ok"
    (java / "copy").mkdir()
    (java / "copy" / "Solution.java").write_text(JAVA_REFERENCE)
    gen.expected["sum_even/java/copy"] = "copy"
    (java / "broken").mkdir()
    (java / "broken" / "Solution.java").write_text("public class Solution { int sumEven(int[] a) { return ; \n")
    gen.expected["sum_even/java/broken"] = "warn"
    (java / "nothing").mkdir()
    (java / "nothing" / "README.md").write_text("no code\n")
    gen.expected["sum_even/java/nothing"] = "error:no file matching"
    (java / "blank").mkdir()
    (java / "blank" / "Solution.java").write_text("")
    gen.expected["sum_even/java/blank"] = "error:empty"
    gen.mapping.write_text(f'''# the generated class
[[problem]]
name = "running_max"
reference = "refs/running_max.py"
context = "{PY_CONTEXT}"
submissions = ["python/*"]

[[problem]]
name = "sum_even"
reference = ["refs/Solution.java"]
context = "{JAVA_CONTEXT}"
submissions = ["java"]
per_folder = true
pattern = "*.java"
''')
    return gen
