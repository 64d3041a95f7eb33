"""Behaviour of C, C++ and Java programs: compiled and run in the real bubblewrap sandbox with the
real compilers (skipped, with the reason, only where bwrap or a compiler is missing)."""

from __future__ import annotations

import time

import pytest
from refscore.behaviour import (
    BehaviourSettings,
    compiled_behaviour,
    run_behaviour,
    supported_languages,
)
from refscore.behaviour.program_mode import PROGRAM_SECONDS
from refscore.behaviour.runners import compiled
from refscore.behaviour.sandbox import SandboxUnavailable, find_sandbox

INPUTS = BehaviourSettings(inputs="1 2\n---\n10 20\n---\n-5 3\n")
ONE_INPUT = BehaviourSettings(inputs="1 2\n")

PROGRAMS = {
    "c": {
        "reference": '#include <stdio.h>\nint main(void) {\n  int a, b;\n  scanf("%d %d", &a, &b);\n'
                     '  printf("%d\\n", a + b);\n  return 0;\n}\n',
        "other_style": '#include <stdio.h>\nstatic long add(long x, long y) { return y + x; }\n'
                       'int main() { long x = 0, y = 0; if (scanf("%ld", &x) != 1) return 1; scanf("%ld", &y);\n'
                       '  printf("%ld   \\n", add(x, y)); }\n',
        "wrong": '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { int a, b; scanf("%d %d", &a, &b);\n'
                 '  printf("%d\\n", a > 0 ? a + b : abs(a) + b); return 0; }\n',
        "broken": '#include <stdio.h>\nint main(void) {\n  int a\n  printf("x");\n}\n',
        "endless": 'int main(void) { volatile unsigned n = 0; for (;;) n++; }\n',
    },
    "cpp": {
        "reference": '#include <iostream>\nint main() {\n  int a, b;\n  std::cin >> a >> b;\n'
                     '  std::cout << a + b << std::endl;\n}\n',
        "other_style": '#include <cstdio>\n#include <vector>\n#include <numeric>\nint main() {\n'
                       '  std::vector<long long> v(2); for (auto &x : v) std::scanf("%lld", &x);\n'
                       '  std::printf("%lld\\n", std::accumulate(v.begin(), v.end(), 0LL));\n}\n',
        "wrong": '#include <iostream>\nint main() { int a, b; std::cin >> a >> b;\n'
                 '  std::cout << (a < 0 ? b - a : a + b) << "\\n"; }\n',
        "broken": '#include <iostream>\nint main() {\n  std::cout << undeclared_name << std::endl;\n}\n',
        "endless": '#include <iostream>\nint main() { volatile unsigned n = 0; while (true) ++n; }\n',
    },
    "java": {
        "reference": 'import java.util.Scanner;\n\npublic class Sum {\n  public static void main(String[] args) {\n'
                     '    Scanner in = new Scanner(System.in);\n    System.out.println(in.nextInt() + in.nextInt());\n'
                     '  }\n}\n',
        "other_style": 'package solutions;\nimport java.io.*;\n\n// public class NotThisOne {\n'
                       'class Adder { static long add(long a, long b) { return a + b; } }\n\n'
                       'public class Main {\n  public static void main(String... args) throws IOException {\n'
                       '    String[] p = new BufferedReader(new InputStreamReader(System.in)).readLine().trim()'
                       '.split("\\\\s+");\n'
                       '    System.out.print(Adder.add(Long.parseLong(p[0]), Long.parseLong(p[1])) + "\\n");\n'
                       '  }\n}\n',
        "wrong": 'import java.util.Scanner;\npublic class Sum { public static void main(String[] a) {\n'
                 '  Scanner s = new Scanner(System.in); int x = s.nextInt(), y = s.nextInt();\n'
                 '  System.out.println(x < 0 ? y - x : x + y); } }\n',
        "broken": 'public class Sum {\n  public static void main(String[] a) {\n    int x = 1\n  }\n}\n',
        "endless": 'public class Sum { public static void main(String[] a) { long n = 0; while (true) n++; } }\n',
    },
}
#: The first error line each broken program gives (a part of it).
COMPILE_ERRORS = {"c": "program.c:4:3: error:", "cpp": "program.cpp:3:16: error: 'undeclared_name'",
                  "java": "Sum.java:3: error: ';' expected"}


@pytest.fixture(scope="module")
def sandbox():
    try:
        return find_sandbox()
    except SandboxUnavailable as error:
        pytest.skip(f"behaviour needs bubblewrap: {error}")


def _needs(language: str) -> None:
    toolchain = compiled.find_toolchain(language)
    if isinstance(toolchain, str):
        pytest.skip(f"{language}: {toolchain}")


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_a_correct_candidate_in_another_style_agrees(sandbox, language):
    _needs(language)
    programs = PROGRAMS[language]
    result = run_behaviour(programs["reference"], programs["other_style"], language, INPUTS)
    assert result.ran and result.mode == "program", result.summary()
    assert (result.agreement, result.inputs, result.agreed) == (1.0, 3, 3), result.disagreements
    runtime = compiled.find_toolchain(language).runtime
    assert result.signature.startswith(f"behaviour|lang:{language}|mode:program|inputs:")
    assert result.signature.endswith(f"|n:3|sandbox:bwrap|{runtime}|version:1")


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_a_wrong_candidate_disagrees_with_the_counter_example(sandbox, language):
    _needs(language)
    programs = PROGRAMS[language]
    result = run_behaviour(programs["reference"], programs["wrong"], language, INPUTS)
    assert (result.inputs, result.agreed) == (3, 2), result.summary()
    [disagreement] = result.disagreements
    assert disagreement.input == "stdin '-5 3\\n'"
    assert (disagreement.expected, disagreement.actual, disagreement.reason) == ("'-2'", "'8'", "different output")


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_a_candidate_that_does_not_compile_disagrees_everywhere_with_one_line(sandbox, language):
    _needs(language)
    programs = PROGRAMS[language]
    result = run_behaviour(programs["reference"], programs["broken"], language, INPUTS)
    assert result.ran and (result.inputs, result.agreed, result.agreement) == (3, 0, 0.0)
    assert len(result.disagreements) == 3
    reason = result.disagreements[0].reason
    assert reason.startswith("does not compile: " + COMPILE_ERRORS[language]), reason
    assert "\n" not in reason and "Traceback" not in reason and "/box/" not in reason
    assert {d.reason for d in result.disagreements} == {reason}
    assert result.disagreements[0].expected == "'3'"


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_an_endless_loop_is_a_timeout_within_the_limit(sandbox, language):
    _needs(language)
    programs = PROGRAMS[language]
    compiled.compile_program(sandbox, compiled.find_toolchain(language), programs["endless"])  # timed apart
    run_behaviour(programs["reference"], programs["reference"], language, ONE_INPUT)  # compiled and planned apart
    started = time.monotonic()
    run_behaviour(programs["reference"], programs["reference"], language, ONE_INPUT)
    runs = time.monotonic() - started  # a quick candidate's run (the plan is cached), at this machine's pace
    started = time.monotonic()
    result = run_behaviour(programs["reference"], programs["endless"], language, ONE_INPUT)
    elapsed = time.monotonic() - started
    assert (result.inputs, result.agreed) == (1, 0), result.summary()
    assert result.disagreements[0].reason == "timeout"
    # a run's start, the longest limit, and slack that grows with this machine's pace (the load may
    # change between the two runs): far below the run's own wall limit, which is what it rules out
    assert elapsed < 2 * runs + PROGRAM_SECONDS + 1.0, (elapsed, runs)


def test_the_reference_that_does_not_compile_is_skipped_in_one_line(sandbox):
    _needs("c")
    result = run_behaviour("int main(void) { return missing; }\n", PROGRAMS["c"]["reference"], "c", INPUTS)
    assert not result.ran
    assert result.not_run.startswith("the reference does not compile: program.c:1:25: error: 'missing' undeclared")
    assert "\n" not in result.not_run
    assert "|lang:c|mode:program|inputs:none|n:0|sandbox:bwrap|cc:" in result.signature


def test_without_an_inputs_file_the_empty_input_runs_once(sandbox):
    _needs("c")
    hello = '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n'
    same = '#include <stdio.h>\nint main(void) { printf("%s\\n", "hello"); }\n'
    other = '#include <stdio.h>\nint main(void) { puts("Hello"); return 0; }\n'
    agreeing = run_behaviour(hello, same, "c")
    assert (agreeing.inputs, agreeing.agreed) == (1, 1), agreeing.summary()
    differing = run_behaviour(hello, other, "c")
    assert (differing.inputs, differing.agreed) == (1, 0)
    assert differing.disagreements[0].input == "stdin ''"


def test_a_crash_and_an_exit_status_are_told_apart_from_output(sandbox):
    _needs("c")
    crash = '#include <stdio.h>\nint main(void) { volatile int *p = 0; return *p; }\n'
    exits = '#include <stdio.h>\nint main(void) { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); return 3; }\n'
    reference = PROGRAMS["c"]["reference"]
    crashed = run_behaviour(reference, crash, "c", ONE_INPUT)
    assert crashed.agreed == 0 and crashed.disagreements[0].reason.startswith("exit status ")
    exited = run_behaviour(reference, exits, "c", ONE_INPUT)
    assert exited.disagreements[0].reason == "exit status 3 (the reference's: 0)"


def test_a_missing_toolchain_is_one_line(monkeypatch):
    monkeypatch.setattr(compiled, "find_toolchain", lambda language: compiled._MISSING[language])
    result = compiled_behaviour.RUNNERS["java"](None, "class A {}", "class A {}", BehaviourSettings())
    assert not result.ran
    assert result.not_run == "not available for java: no JDK (javac) on this machine"


def test_the_languages_are_registered():
    assert {"c", "cpp", "java"} <= set(supported_languages())
    assert set(compiled_behaviour.RUNNERS) == {"c", "cpp", "java"}


@pytest.mark.parametrize("source, expected", [
    ("public class Sum { public static void main(String[] a) {} }", ("Sum", "Sum")),
    ("package a.b;\nclass Helper {}\npublic class Main { public static void main(String[] a) {} }",
     ("Main", "a.b.Main")),
    ("// public class Comment {\nclass Runner { static void main(String[] a) {} }\nclass Other {}",
     ("Runner", "Runner")),
    (('class Outer { public class Inner {} String s = "public class Text {"; }\n'
      "public final class Program { public static void main(String[] a) {} }"), ("Program", "Program")),
    ("public class Shown { }\nclass Entry { public static void main(String[] a) {} }", ("Shown", "Entry")),
    ("", ("Main", "Main")),
])
def test_java_class_names_come_from_the_source(source, expected):
    assert compiled.java_classes(source) == expected


def test_the_first_error_line_is_chosen():
    stderr = (b"/usr/bin/ld: /tmp/ccA.o: in function `main':\n"
              b"program.c:(.text+0x5): undefined reference to `foo'\n"
              b"collect2: error: ld returned 1 exit status\n")
    assert compiled.first_error(stderr) == "program.c:(.text+0x5): undefined reference to `foo'"
    assert compiled.first_error(b"/box/program.c: In function 'main':\n/box/program.c:2:3: error: bad\n") \
        == "program.c:2:3: error: bad"
    assert compiled.first_error(b"") == "the compiler failed"


def test_a_jvm_that_cannot_start_is_told_not_taken_for_agreement(sandbox, monkeypatch):
    _needs("java")
    toolchain = compiled.find_toolchain("java")
    assert compiled.jvm_problem(sandbox, toolchain) is None
    monkeypatch.setattr(compiled, "JAVA_MEMORY", 300 << 20)  # below the heap it reserves
    problem = compiled.jvm_problem.__wrapped__(sandbox, toolchain)
    assert problem is not None and problem.startswith("the JVM does not start in the sandbox (")
    assert "\n" not in problem
