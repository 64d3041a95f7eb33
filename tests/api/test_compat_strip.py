"""Comment/docstring removal equals the codebleu package's, on real data and on odd layouts."""

from __future__ import annotations

import gzip
import json

import pytest
from refscore.analysis.comments import strip_compat, strip_python_fast
from refscore.eval.data import default_data_dir

from tests.support import codebleu_oracle as oracle

DATA = default_data_dir() / "humaneval" / "python.jsonl.gz"

ODD_PYTHON = [
    'def f():\n    """doc"""\n    return 1\n',
    'def f():\n\n    """doc after blank"""\n    return 1\n',
    'def f():\n    # comment first\n    """doc"""\n    return 1\n',
    'def f():\n    x = 1\n    "kept? no: follows NEWLINE"\n    return x\n',
    'def f():\n    x = 1\n\n    "kept: follows NL"\n    return x\n',
    'def f():\n    x = 1\n    # c\n    "kept: follows NL"\n',
    'def f():\n    if x:\n        y = 1\n    "kept: follows DEDENT"\n',
    'x = (\n"col 0 in brackets is dropped"\n)\n',
    'x = (\n    "inside brackets kept"\n)\n',
    'def f():\n    "abc".join(x)\n    return f"{x!r} {\'y\'}" "z"\n',
    'def f():\n    return 1\n  # odd comment\n',
    'if not value:\n        return\n\n    value = float(value)\n    return int(value + 0.5)',
    'x = 1\n    """indented after the first line"""\n    return x',
    "def f():\n\treturn 1  # tab indented\n",
    "def f():\r\n    return 1  # crlf\r\n",
    "x = 1 + \\\n    2  # continuation\n",
    'def f():\n    s = """unterminated\n',
    "def f(:\n    return ((\n",
    'def g():\n    """Ünïcödé doc ☺"""\n    return "ü"  # ☺\n',
    'class A:\n    """doc"""\n    def m(self):\n        """m doc"""\n        pass\n    """after dedent"""\n',
    "",
    "# only a comment\n",
    "x = f\"{d['k']}\" # nested quotes\n'''doc at column 0'''\n",
    "def f():\n    rb'raw bytes'\n    xr'a' + 1\n    Rb\"b\" ; u'x'\n    return ur'not a prefix'\n",
    "s = '''unterminated 'then' singles\nx = 'a'\n",
    "x = [1,\n  2]]\n'''after unbalanced'''\n",
    "x = (1,\n'''col 0 inside brackets'''\n)\ny = 2\n",
    'def f():\n    """multi\n\n    line with blank"""\n    return """a\n\nb"""\n',
    "x = 1  # trailing ( bracket in a comment\n'''doc'''\n",
    "x = ')'  # bracket in a string\n'''doc'''\n",
]


def package_strip(source: str) -> str:
    oracle.load()
    from codebleu_ordered.parser import remove_comments_and_docstrings

    try:
        return remove_comments_and_docstrings(source, "python")
    except Exception:  # the package's callers keep the text when it raises
        return source


@pytest.mark.parametrize("source", ODD_PYTHON)
def test_odd_python_layouts(source: str) -> None:
    assert strip_compat(source, "python") == package_strip(source)
    fast = strip_python_fast(source)
    assert fast is None or fast == package_strip(source)


def test_humaneval_texts_match_and_mostly_take_the_fast_path() -> None:
    if not DATA.exists():
        pytest.skip(f"evaluation data not found at {DATA}")
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle][::7]
    texts = list(dict.fromkeys(t for r in rows for t in (r["hyp"].strip(), r["ref"].strip())))
    fast = 0
    for text in texts:
        quick = strip_python_fast(text)
        if quick is not None:
            fast += 1
            assert quick == package_strip(text), text
    assert fast >= 0.9 * len(texts)


def test_mutated_python_matches_tokenize() -> None:
    """Seeded random edits (quotes, brackets, comments, prefixes, indentation) of the odd layouts:
    wherever the fast path answers, it answers as the tokenize-based package does."""
    import random

    rng = random.Random(20261129)
    pieces = ['"', "'", '"""', "'''", "#", "(", ")", "[", "]", "{", "}", "\n", " ", "    ", "r", "b",
              "rb", "f", "u", "x", "\\", "\n\n", "  #c\n", '"s"', "\n'''doc'''\n", "_", "1", "é"]
    seeds = [s for s in ODD_PYTHON if s]
    answered = 0
    for _ in range(3000):
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(0, len(text))
            if rng.random() < 0.6:
                text = text[:at] + rng.choice(pieces) + text[at:]
            else:
                text = text[:at] + text[at + rng.randint(1, 5):]
        quick = strip_python_fast(text)
        if quick is not None:
            answered += 1
            assert quick == package_strip(text), text
    assert answered > 1000


@pytest.mark.parametrize("lang", ["java", "c", "cpp", "javascript", "go", "php", "c_sharp", "rust", "ruby"])
def test_c_style_and_ruby(lang: str) -> None:
    oracle.load()
    from codebleu_ordered.parser import remove_comments_and_docstrings

    source = 'int a = 1; // c\n/* block\n comment */ char *s = "// not a comment";\n\n  x = \'/*\';\n# hash\n'
    assert strip_compat(source, lang) == remove_comments_and_docstrings(source, lang)
