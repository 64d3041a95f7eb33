"""End-to-end tests of `refscore score` as a real subprocess: output shapes and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PACKAGE_KEYS = {"codebleu", "ngram_match_score", "weighted_ngram_match_score", "syntax_match_score",
                "dataflow_match_score"}
COMPONENTS = {"ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match"}


def refscore(*args: str, timeout: float = 120, metrics: str = "codebleu") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    extra = ["--metrics", metrics] if args and args[0] == "score" and metrics else []
    return subprocess.run([sys.executable, "-m", "refscore", *args, *extra], capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_clean_failure(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert needle in lines[0]


def test_version_and_help() -> None:
    assert refscore("--version").stdout.startswith("refscore ")
    help_text = refscore("--help").stdout
    assert "score" in help_text


def test_table_lists_every_component() -> None:
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/candidate_close.py"))
    assert result.returncode == 0, result.stderr
    for label in ("CodeBLEU", "n-gram match", "weighted n-gram", "syntax match", "dataflow match", "signature"):
        assert label in result.stdout


def test_json_has_language_and_package_keys() -> None:
    result = refscore("score", str(EXAMPLES / "java/Reference.java"), str(EXAMPLES / "java/CandidateLoop.java"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["language"] == "java"
    assert set(data["codebleu_native"]) == {"codebleu_native", *COMPONENTS}  # the package's keys: its rule only
    assert all(0.0 <= v <= 1.0 for v in data["codebleu_native"].values())


def test_identical_files_score_one(tmp_path: Path) -> None:
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/reference.py"), "--json")
    data = json.loads(result.stdout)
    assert data["codebleu_native"]["codebleu_native"] == pytest.approx(1.0)


def test_lang_flag_overrides_extension(tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    cand = tmp_path / "cand.txt"
    ref.write_text("x = 1\nprint(x)\n")
    cand.write_text("y = 1\nprint(y)\n")
    result = refscore("score", str(ref), str(cand), "--lang", "python", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["language"] == "python"


def test_empty_files_get_a_defined_score(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("")
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(empty), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["codebleu_native"]["codebleu_native"] == pytest.approx(0.0)
    table = refscore("score", str(EXAMPLES / "python/reference.py"), str(empty)).stdout
    ngram_line = next(line for line in table.splitlines() if "n-gram match (BLEU)" in line)
    assert ngram_line.endswith("the candidate has no tokens"), table  # not "no reference data"
    both = refscore("score", str(empty), str(empty), "--json")
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)["codebleu_native"]["codebleu_native"] == 0.0


def test_an_empty_reference_scores_zero_with_a_note_and_compat_keeps_the_package(tmp_path: Path) -> None:
    """Against an empty (or blank) reference every native CodeBLEU component is 0, as
    docs/reliability.md says (two empty files scored 0.333: the empty module trees matched), and
    the table says why; ``--codebleu-rule compat`` keeps the package's number (0.5 for two empty
    files: its dataflow rule gives full credit)."""
    from tests.support import codebleu_oracle as oracle

    empty, blank = tmp_path / "empty.py", tmp_path / "blank.py"
    empty.write_text("")
    blank.write_text("\n  \n")
    for reference, candidate in ((empty, empty), (blank, blank), (blank, EXAMPLES / "python/reference.py")):
        data = json.loads(refscore("score", str(reference), str(candidate), "--json").stdout)
        assert data["codebleu_native"]["codebleu_native"] == 0.0, data
        assert all(c["score"] in (0.0, None) for c in data["codebleu_details"]["components"]), data
        assert any("is empty" in w for w in data["warnings"])
    table = refscore("score", str(empty), str(empty)).stdout
    assert next(line for line in table.splitlines() if "CodeBLEU" in line).split() == ["CodeBLEU", "0.000"], table
    assert "note: the reference" in table and "is empty" in table, table
    compat = json.loads(refscore("score", str(empty), str(empty), "--json", "--codebleu-rule", "compat").stdout)
    assert compat["codebleu"]["codebleu"] == pytest.approx(oracle.calc_codebleu([""], [""], "python")["codebleu"])


def test_syntax_errors_still_score(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n  return ((( ]]] \n  'unterminated\n" * 20)
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(broken), "--json")
    assert result.returncode == 0, result.stderr
    assert 0.0 <= json.loads(result.stdout)["codebleu_native"]["codebleu_native"] <= 1.0


def test_binary_file_is_refused(tmp_path: Path) -> None:
    binary = tmp_path / "blob.py"
    binary.write_bytes(bytes(range(256)) * 4)
    assert_clean_failure(refscore("score", str(EXAMPLES / "python/reference.py"), str(binary)), 3, "binary")


def test_non_utf8_is_refused(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    assert_clean_failure(refscore("score", str(EXAMPLES / "python/reference.py"), str(latin)), 3, "UTF-8")


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", "FF FE"), ("utf-16-be", "FE FF"),
                                           ("utf-32-le", "FF FE 00 00"), ("utf-32-be", "00 00 FE FF")])
def test_utf16_and_utf32_say_what_they_are(tmp_path: Path, encoding: str, bom: str) -> None:
    """A UTF-16 file (what PowerShell's ``>`` writes) was refused as ``looks binary (contains NUL
    bytes)``; it is text in another encoding, and the line says which and how to convert it."""
    wide = tmp_path / "wide.py"
    wide.write_bytes("\ufeffdef f(x):\n    return x\n".encode(encoding))
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(wide))
    assert_clean_failure(result, 3, encoding.replace("-le", "LE").replace("-be", "BE").upper())
    assert "binary" not in result.stderr and f"byte order mark {bom}" in result.stderr and "UTF-8" in result.stderr
    wide.write_bytes(b"\xff\xfe\x00binary\x00")  # binary data that merely starts with a mark
    assert_clean_failure(refscore("score", str(EXAMPLES / "python/reference.py"), str(wide)), 3, "looks binary")


def test_missing_file(tmp_path: Path) -> None:
    assert_clean_failure(refscore("score", str(EXAMPLES / "python/reference.py"), str(tmp_path / "nope.py")), 3,
                         "no such file")


def test_unknown_extension(tmp_path: Path) -> None:
    odd = tmp_path / "thing.xyz"
    odd.write_text("hello")
    ref = tmp_path / "ref.abc"
    ref.write_text("hello")
    assert_clean_failure(refscore("score", str(ref), str(odd)), 4, "--lang")


def test_unknown_lang_flag() -> None:
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/reference.py"),
                      "--lang", "cobol")
    assert_clean_failure(result, 4, "unknown language")


def test_five_megabyte_file_scores(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    block = (EXAMPLES / "python/candidate_close.py").read_text()
    big.write_text((block + "\n") * (5 * 1024 * 1024 // len(block) + 1))
    assert big.stat().st_size >= 5 * 1024 * 1024
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(big), "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    assert 0.0 <= json.loads(result.stdout)["codebleu_native"]["codebleu_native"] <= 1.0


def test_both_metrics_by_default_with_model_named() -> None:
    result = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/candidate_close.py"),
                      "--json", metrics="", timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    bert = data["codebertscore"]
    assert {"precision", "recall", "f1", "f3", "model", "layer", "device", "signature"} <= set(bert)
    assert 0.0 < bert["f3"] <= 1.0
    assert "MiniLM" in bert["model"] or "codebert" in bert["model"]


def test_scoring_does_not_execute_the_code(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    payload = tmp_path / "payload.py"
    payload.write_text(f"open({str(marker)!r}, 'w').write('x')\nimport os\nos.system('touch {marker}')\n")
    result = refscore("score", str(payload), str(payload), "--json")
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_deep_nesting_gets_a_defined_score(tmp_path: Path) -> None:
    deep_expression = tmp_path / "deep.py"
    deep_expression.write_text("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    lines = ["def f(n):"] + ["    " * (i + 1) + f"if n > {i}:" for i in range(300)] + ["    " * 301 + "return n"]
    deep_blocks = tmp_path / "blocks.py"
    deep_blocks.write_text("\n".join(lines) + "\n")
    for path in (deep_expression, deep_blocks):
        result = refscore("score", str(path), str(path), "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["codebleu_native"]["syntax_match"] == pytest.approx(1.0)


def test_codebleu_rule_compat_gives_the_package_numbers(tmp_path: Path) -> None:
    """``--codebleu-rule compat`` prints what ``calc_codebleu`` (and the codebleu package) gives;
    the default, native, differs where the rules differ (here: no dataflow matched)."""
    from refscore.compat import calc_codebleu

    from tests.support import codebleu_oracle as oracle

    reference = tmp_path / "ref.py"
    candidate = tmp_path / "cand.py"
    reference.write_text("def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n")
    candidate.write_text("def f():\n    return 0  # no dataflow to match\n")
    compat = refscore("score", str(reference), str(candidate), "--json", "--codebleu-rule", "compat")
    native = refscore("score", str(reference), str(candidate), "--json")
    assert compat.returncode == 0 and native.returncode == 0, compat.stderr + native.stderr
    got = json.loads(compat.stdout)
    expected = calc_codebleu([reference.read_text()], [candidate.read_text()], "python")
    package = oracle.calc_codebleu([reference.read_text()], [candidate.read_text()], "python")
    for key in PACKAGE_KEYS:
        assert got["codebleu"][key] == pytest.approx(expected[key], abs=1e-12)
        assert got["codebleu"][key] == pytest.approx(package[key], abs=1e-9)
    assert got["codebleu_details"]["rule"] == "compat" and "rule:compat" in got["codebleu_details"]["signature"]
    assert json.loads(native.stdout)["codebleu_native"]["codebleu_native"] != got["codebleu"]["codebleu"]
    table = refscore("score", str(reference), str(candidate), "--codebleu-rule", "compat", "--explain")
    assert "rule:compat" in table.stdout and "explanations come with --codebleu-rule native" in table.stdout
    bad = refscore("score", str(reference), str(candidate), "--codebleu-rule", "paper")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_candidate_from_standard_input() -> None:
    """``-`` reads the candidate from standard input (issue 28, item 10): the same numbers as the
    file, the reference's language, and one clear line for binary input or a second ``-``."""
    reference, candidate = EXAMPLES / "python/reference.py", EXAMPLES / "python/candidate_close.py"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    base = [sys.executable, "-m", "refscore", "score", str(reference)]
    piped = subprocess.run([*base, "-", "--json", "--metrics", "codebleu"], input=candidate.read_bytes(),
                           capture_output=True, timeout=120, env=env)
    assert piped.returncode == 0, piped.stderr
    from_file = refscore("score", str(reference), str(candidate), "--json")
    data, expected = json.loads(piped.stdout), json.loads(from_file.stdout)
    assert data["candidate"] == "-" and data["language"] == "python"
    assert data["codebleu_native"] == expected["codebleu_native"]
    binary = subprocess.run([*base, "-", "--metrics", "codebleu"], input=b"\x00\x01", capture_output=True,
                            timeout=120, env=env)
    assert binary.returncode == 3 and b"standard input: looks binary" in binary.stderr
    twice = subprocess.run([*base, "-", "-", "--metrics", "codebleu"], input=b"x = 1\n", capture_output=True,
                           timeout=120, env=env)
    assert twice.returncode == 2 and b"once" in twice.stderr and b"Traceback" not in twice.stderr


def test_reference_from_standard_input() -> None:
    """``-`` as the reference (or an ``--also-reference``) reads it from standard input, as ``-``
    does for a candidate: it said ``-: no such file``. ``-`` stays once in the whole command."""
    reference, candidate = EXAMPLES / "python/reference.py", EXAMPLES / "python/candidate_close.py"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    base = [sys.executable, "-m", "refscore", "score"]
    expected = json.loads(refscore("score", str(reference), str(candidate), "--json").stdout)
    for args in (["-", str(candidate)], [str(reference), str(candidate), "--also-reference", "-"]):
        piped = subprocess.run([*base, *args, "--json", "--metrics", "codebleu"], input=reference.read_bytes(),
                               capture_output=True, timeout=120, env=env)
        assert piped.returncode == 0, piped.stderr
        data = json.loads(piped.stdout)
        assert data["language"] == "python" and data["codebleu_native"] == expected["codebleu_native"]
    assert json.loads(subprocess.run([*base, "-", str(candidate), "--json", "--metrics", "codebleu"],
                                     input=reference.read_bytes(), capture_output=True, timeout=120,
                                     env=env).stdout)["reference"] == "-"
    twice = subprocess.run([*base, "-", "-", "--metrics", "codebleu", "--lang", "python"], input=b"x = 1\n",
                           capture_output=True, timeout=120, env=env)
    assert twice.returncode == 2 and b"once" in twice.stderr and b"Traceback" not in twice.stderr


def test_an_empty_reference_is_in_the_json_warnings(tmp_path: Path) -> None:
    """Every line ``score`` warns with on stderr is in the candidate's ``warnings`` too (bidi
    controls and a language mismatch were; an empty reference was only on stderr)."""
    empty = tmp_path / "ref.py"
    empty.write_text("\n  \n")
    result = refscore("score", str(empty), str(EXAMPLES / "python/candidate_close.py"), "--json")
    assert result.returncode == 0, result.stderr
    warnings = json.loads(result.stdout)["warnings"]
    assert [w for w in warnings if "is empty: there is nothing to compare with" in w] and "is empty" in result.stderr


def test_context_file_from_standard_input() -> None:
    """``--context-file -`` reads the task from standard input like a ``-`` reference or candidate
    (it said ``-: no such file``); ``-`` is still once in the whole command."""
    reference, candidate = EXAMPLES / "python/reference.py", EXAMPLES / "python/candidate_close.py"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    base = [sys.executable, "-m", "refscore", "score", str(reference), str(candidate), "--json", "--no-daemon",
            "--metrics", "codebleu,codebertscore"]
    piped = subprocess.run([*base, "--context-file", "-"], input=b"add the numbers", capture_output=True,
                           timeout=240, env=env)
    assert piped.returncode == 0, piped.stderr
    given = subprocess.run([*base, "--context", "add the numbers"], capture_output=True, timeout=240, env=env)
    assert json.loads(piped.stdout)["codebertscore"] == json.loads(given.stdout)["codebertscore"]
    assert "ctx:yes" in json.loads(piped.stdout)["codebertscore"]["signature"]
    twice = subprocess.run([*base[:5], "-", "--context-file", "-"], input=b"x", capture_output=True, timeout=120,
                           env=env)
    assert twice.returncode == 2 and b"once" in twice.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_under_the_output_is_one_line_not_an_internal_error() -> None:
    """``refscore score ... > /dev/full`` said ``internal error: OSError: [Errno 28] No space left
    on device (please report it ...)``, exit 5: a full disk is no bug to report."""
    reference, candidate = EXAMPLES / "python/reference.py", EXAMPLES / "python/candidate_close.py"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "refscore", "score", str(reference), str(candidate),
                                 "--metrics", "codebleu", "--explain"], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120, env=env)
    assert result.returncode == 3, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
    assert "internal error" not in lines[0] and "report" not in lines[0] and "Traceback" not in result.stderr


def test_a_file_name_that_is_not_utf8_is_readable_in_json(tmp_path: Path) -> None:
    """``--json`` wrote the name ``\\xff.py`` as ``"\\udcff.py"``, a lone surrogate that strict JSON
    readers refuse (node's ``encodeURIComponent`` throws ``URI malformed``); it is spelled
    ``\\xff`` as in every grade report."""
    name = os.fsdecode(b"\xff.py")
    (tmp_path / name).write_text("def add(x, y):\n    return x + y\n")
    result = subprocess.run([sys.executable, "-m", "refscore", "score", name, name, "--json", "--metrics", "codebleu"],
                            capture_output=True, timeout=120, cwd=tmp_path, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr
    assert b"\\udc" not in result.stdout
    data = json.loads(result.stdout)
    assert data["candidate"] == data["reference"] == "\\xff.py" and data["codebleu_native"]["codebleu_native"] == 1.0


def test_per_function_codebleu_follows_the_codebleu_rule(tmp_path: Path) -> None:
    """Under ``--codebleu-rule compat`` the whole file scored 0.839 but its one function, the same
    text, 0.785: the per-function scores were always the native rule's."""
    (tmp_path / "ref.py").write_text("def f():\n    print(1, 2, 3)\n")
    (tmp_path / "cand.py").write_text("def f():\n    print(1, 2, 4)\n")
    for rule in ("compat", "native"):
        result = refscore("score", str(tmp_path / "ref.py"), str(tmp_path / "cand.py"), "--per-function", "--json",
                          "--codebleu-rule", rule)
        assert result.returncode == 0, result.stderr
        data, name = json.loads(result.stdout), "codebleu" if rule == "compat" else "codebleu_native"
        assert data["functions"][0][name] == pytest.approx(data[name][name], abs=1e-12), rule


def test_every_reference_is_named_in_the_table_and_the_json() -> None:
    """With ``--also-reference`` the table's header and the JSON named the first reference only;
    the header names all, ``references`` lists all (``reference`` stays the first)."""
    reference, other = EXAMPLES / "python/reference.py", EXAMPLES / "python/candidate_builtin.py"
    candidate = EXAMPLES / "python/candidate_close.py"
    args = ("score", str(reference), str(candidate), "--also-reference", str(other))
    header = refscore(*args).stdout.splitlines()[0]
    assert header == f"{candidate}  vs  {reference}, {other}  [python]", header
    data = json.loads(refscore(*args, "--json").stdout)
    assert data["reference"] == str(reference) and data["references"] == [str(reference), str(other)]
    single = json.loads(refscore("score", str(reference), str(candidate), "--json").stdout)
    assert single["references"] == [str(reference)]


def test_reference_option_as_in_grade() -> None:
    """`-r/--reference FILE` names the reference as `refscore grade -r` does; then every
    positional is a candidate, in any order around the option."""
    ref, close, loop = (str(EXAMPLES / f"python/{n}.py") for n in ("reference", "candidate_close", "candidate_wrong"))
    positional = refscore("score", ref, close, loop, "--json")
    assert positional.returncode == 0, positional.stderr
    for argv in ((close, loop, "-r", ref), ("--reference", ref, close, loop), (close, loop, f"--reference={ref}")):
        result = refscore("score", *argv, "--json")
        assert result.returncode == 0, (argv, result.stderr)
        assert result.stdout == positional.stdout, argv
    one = refscore("score", close, "-r", ref, "--json")
    assert json.loads(one.stdout)["candidate"].endswith("candidate_close.py")


def test_no_reference_at_all_is_one_usage_line() -> None:
    assert_clean_failure(refscore("score", str(EXAMPLES / "python/candidate_close.py")), 2,
                         "give the reference")
