"""Small candidate/reference pairs used by the language-server tests."""

from __future__ import annotations

from pathlib import Path

REFERENCE = '''def fizzbuzz(n):
    """Return the FizzBuzz word for n."""
    if n % 15 == 0:
        return "FizzBuzz"
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    return str(n)


def total(values):
    result = 0
    for value in values:
        result += value
    return result
'''

CANDIDATE = '''def fizzbuzz(n):
    if n % 15 == 0:
        return "FizzBuzz"
    elif n % 3 == 0:
        return "Fizz"
    elif n % 5 == 0:
        return "Buzz"
    return str(n)


def add_all(items):
    s = 0
    for x in items:
        s = s + x
    return s
'''

UNRELATED = '''import os

print(os.getcwd())
'''


def write_pair(folder: Path, stem: str, candidate: str = CANDIDATE) -> Path:
    """``STEM.ref.py`` (the reference) and ``STEM.py`` (the candidate) in ``folder``; the candidate's path."""
    (folder / f"{stem}.ref.py").write_text(REFERENCE, encoding="utf-8")
    path = folder / f"{stem}.py"
    path.write_text(candidate, encoding="utf-8")
    return path
