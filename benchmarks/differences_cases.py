"""Planted single-line slips for benchmarks/bench_differences.py, written for it.

Each base program has a reference and a restyled version that does the same (other names, another
loop form or idiom). A case plants one slip in both: ``near`` edits the reference, ``restyled``
the restyled version. An edit ``(old, new)`` replaces the one occurrence of ``old``; ``new`` None
deletes the line holding ``old`` (a missing statement: the bug line is the line before the gap,
where the statement would follow). The bug lines are the lines an edit touched; a swap touches two.
"""

from __future__ import annotations

from dataclasses import dataclass

Edit = tuple[str, str | None]

BASES: dict[str, tuple[str, str, str]] = {}  # name -> (language, reference, restyled)


def base(name: str, language: str, reference: str, restyled: str) -> None:
    BASES[name] = (language, reference.lstrip("\n"), restyled.lstrip("\n"))


@dataclass(frozen=True)
class Case:
    name: str
    base: str
    slip: str  # the slip's family
    near: tuple[Edit, ...]
    restyled: tuple[Edit, ...]


def apply(text: str, edits: tuple[Edit, ...]) -> tuple[str, frozenset[int]]:
    """``text`` with the edits made, and the 0-based bug lines."""
    lines = text.split("\n")
    bugs: set[int] = set()
    for old, new in edits:
        hits = [i for i, line in enumerate(lines) if old in line]
        if len(hits) != 1 or "\n".join(lines).count(old) != 1:
            raise ValueError(f"{old!r} must occur once")
        at = hits[0]
        if new is None:
            del lines[at]
            bugs = {b - 1 if b > at else b for b in bugs}
            bugs.add(at - 1)
        else:
            lines[at] = lines[at].replace(old, new)
            bugs.add(at)
    return "\n".join(lines), frozenset(bugs)


def swap(first: str, second: str) -> tuple[Edit, ...]:
    """Edits that swap two snippets (each must occur once)."""
    return ((first, "\x00"), (second, first), ("\x00", second))


# ---------------------------------------------------------------- Python
base("sum_positive", "python", '''
def sum_positive(values):
    total = 0
    for value in values:
        if value > 0:
            total += value
    return total
''', '''
def sum_positive(nums):
    acc = 0
    i = 0
    while i < len(nums):
        x = nums[i]
        if x > 0:
            acc += x
        i += 1
    return acc
''')
base("index_of_max", "python", '''
def index_of_max(items):
    best = 0
    for i in range(1, len(items)):
        if items[i] > items[best]:
            best = i
    return best
''', '''
def index_of_max(xs):
    top = 0
    for k, x in enumerate(xs):
        if k > 0 and x > xs[top]:
            top = k
    return top
''')
base("describe", "python", '''
def describe(n):
    if n % 2 == 0:
        kind = "even"
    else:
        kind = "odd"
    return kind + " " + str(n)
''', '''
def describe(number):
    label = "even" if number % 2 == 0 else "odd"
    return f"{label} {number}"
''')
base("average", "python", '''
def average(scores):
    if not scores:
        return 0.0
    total = 0
    for s in scores:
        total += s
    return total / len(scores)
''', '''
def average(marks):
    if len(marks) == 0:
        return 0.0
    return sum(marks) / len(marks)
''')
base("count_words", "python", '''
def count_words(lines):
    counts = {}
    for line in lines:
        for word in line.split():
            word = word.lower()
            counts[word] = counts.get(word, 0) + 1
    return counts
''', '''
def count_words(rows):
    tally = {}
    for row in rows:
        for w in row.split():
            w = w.lower()
            if w in tally:
                tally[w] += 1
            else:
                tally[w] = 1
    return tally
''')

# ---------------------------------------------------------------- Java
base("sum_above", "java", '''
public class Stats {
    public static int sumAbove(int[] values, int limit) {
        int total = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] > limit) {
                total += values[i];
            }
        }
        return total;
    }
}
''', '''
public class Stats {
    public static int sumAbove(int[] data, int threshold) {
        int sum = 0;
        for (int d : data) {
            if (d > threshold) {
                sum = sum + d;
            }
        }
        return sum;
    }
}
''')
base("count_vowels", "java", '''
public class Text {
    public static int countVowels(String s) {
        int count = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = Character.toLowerCase(s.charAt(i));
            if ("aeiou".indexOf(c) >= 0) {
                count++;
            }
        }
        return count;
    }
}
''', '''
public class Text {
    public static int countVowels(String word) {
        int n = 0;
        int k = 0;
        while (k < word.length()) {
            char ch = Character.toLowerCase(word.charAt(k));
            if ("aeiou".indexOf(ch) != -1) {
                n += 1;
            }
            k++;
        }
        return n;
    }
}
''')
base("largest", "java", '''
import java.util.List;

public class Finder {
    public static int largest(List<Integer> xs) {
        if (xs.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        int best = xs.get(0);
        for (int x : xs) {
            if (x > best) {
                best = x;
            }
        }
        return best;
    }
}
''', '''
import java.util.List;

public class Finder {
    public static int largest(List<Integer> items) {
        if (items.size() == 0) throw new IllegalArgumentException("empty");
        int max = items.get(0);
        for (int i = 1; i < items.size(); i++) {
            max = Math.max(max, items.get(i));
        }
        return max;
    }
}
''')
base("verdict", "java", '''
public class Grades {
    public static String verdict(int score) {
        if (score >= 50) {
            return "pass";
        } else {
            return "fail";
        }
    }
}
''', '''
public class Grades {
    public static String verdict(int points) {
        String result = "fail";
        if (points >= 50) {
            result = "pass";
        }
        return result;
    }
}
''')

# ---------------------------------------------------------------- JavaScript
base("count_matches", "javascript", '''
function countMatches(words, prefix) {
  let count = 0;
  for (const word of words) {
    if (word.startsWith(prefix)) {
      count += 1;
    }
  }
  return count;
}
''', '''
const countMatches = (list, start) => {
  const hits = list.filter((w) => w.startsWith(start));
  return hits.length;
};
''')
base("range", "javascript", '''
function range(start, stop, step) {
  const out = [];
  for (let i = start; i < stop; i += step) {
    out.push(i);
  }
  return out;
}
''', '''
function range(from, to, by) {
  const values = [];
  let v = from;
  while (v < to) {
    values.push(v);
    v = v + by;
  }
  return values;
}
''')
base("total_price", "javascript", '''
function totalPrice(items) {
  let total = 0;
  for (const item of items) {
    total += item.price * item.quantity;
  }
  return Math.round(total * 100) / 100;
}
''', '''
function totalPrice(cart) {
  const sum = cart.reduce((acc, it) => acc + it.price * it.quantity, 0);
  return Math.round(sum * 100) / 100;
}
''')
base("sign", "javascript", '''
function sign(x) {
  if (x < 0) {
    return -1;
  } else if (x > 0) {
    return 1;
  }
  return 0;
}
''', '''
function sign(n) {
  if (n > 0) return 1;
  if (n < 0) return -1;
  return 0;
}
''')

# ---------------------------------------------------------------- C++
base("sum_even", "cpp", '''
#include <vector>

int sumEven(const std::vector<int>& values) {
    int total = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] % 2 == 0) {
            total += values[i];
        }
    }
    return total;
}
''', '''
#include <vector>

int sumEven(const std::vector<int>& v) {
    int s = 0;
    for (int x : v) {
        if (x % 2 != 0) continue;
        s += x;
    }
    return s;
}
''')
base("reverse", "cpp", '''
#include <string>

std::string reverse(const std::string& s) {
    std::string out;
    for (int i = (int)s.size() - 1; i >= 0; --i) {
        out.push_back(s[i]);
    }
    return out;
}
''', '''
#include <string>

std::string reverse(const std::string& text) {
    size_t n = text.size();
    std::string result(n, ' ');
    for (size_t k = 0; k < n; k++) {
        result[k] = text[n - 1 - k];
    }
    return result;
}
''')
base("gcd", "cpp", '''
int gcd(int a, int b) {
    while (b != 0) {
        int t = b;
        b = a % b;
        a = t;
    }
    return a;
}
''', '''
int gcd(int x, int y) {
    if (y == 0) {
        return x;
    }
    return gcd(y, x % y);
}
''')
base("prefix_sums", "cpp", '''
#include <vector>

std::vector<int> prefixSums(const std::vector<int>& xs) {
    std::vector<int> sums;
    int running = 0;
    for (int x : xs) {
        running += x;
        sums.push_back(running);
    }
    return sums;
}
''', '''
#include <vector>

std::vector<int> prefixSums(const std::vector<int>& input) {
    std::vector<int> result(input.size());
    int acc = 0;
    for (size_t i = 0; i < input.size(); i++) {
        acc = acc + input[i];
        result[i] = acc;
    }
    return result;
}
''')

CASES: tuple[Case, ...] = (
    # Python
    Case("py-accumulate", "sum_positive", "assignment for accumulation",
         (("total += value", "total = value"),), (("acc += x", "acc = x"),)),
    Case("py-inverted", "sum_positive", "inverted condition",
         (("if value > 0", "if value <= 0"),), (("if x > 0", "if x <= 0"),)),
    Case("py-off-by-one", "index_of_max", "off-by-one bound",
         (("range(1, len(items))", "range(1, len(items) - 1)"),), (("k > 0 and", "k > 1 and"),)),
    Case("py-constant", "index_of_max", "wrong constant",
         (("items[i] > items[best]", "items[i] > items[0]"),), (("x > xs[top]", "x > xs[0]"),)),
    Case("py-variable", "index_of_max", "wrong variable",
         (("return best", "return i"),), (("return top", "return k"),)),
    Case("py-swapped", "describe", "swapped branches",
         swap('kind = "even"', 'kind = "odd"'), (('"even" if number % 2 == 0 else "odd"', '"odd" if number % 2 == 0 else "even"'),)),
    Case("py-operator", "average", "wrong operator",
         (("total / len(scores)", "total * len(scores)"),), (("sum(marks) / len", "sum(marks) * len"),)),
    Case("py-missing", "count_words", "missing statement",
         (("word = word.lower()", None),), (("w = w.lower()", None),)),
    Case("py-constant-2", "average", "wrong constant",
         (("return 0.0", "return 1.0"),), (("return 0.0", "return 1.0"),)),
    Case("py-constant-3", "count_words", "wrong constant",
         (("counts.get(word, 0)", "counts.get(word, 1)"),), (("tally[w] = 1", "tally[w] = 0"),)),
    # Java
    Case("java-accumulate", "sum_above", "assignment for accumulation",
         (("total += values[i]", "total = values[i]"),), (("sum = sum + d", "sum = d"),)),
    Case("java-inverted", "sum_above", "inverted condition",
         (("values[i] > limit", "values[i] <= limit"),), (("d > threshold", "d <= threshold"),)),
    Case("java-variable", "sum_above", "wrong variable",
         (("values[i] > limit", "values[i] > total"),), (("d > threshold", "d > sum"),)),
    Case("java-off-by-one", "count_vowels", "off-by-one bound",
         (("i < s.length()", "i < s.length() - 1"),), (("k < word.length()", "k < word.length() - 1"),)),
    Case("java-constant", "count_vowels", "wrong constant",
         (('"aeiou".indexOf(c)', '"aeio".indexOf(c)'),), (('"aeiou".indexOf(ch)', '"aeio".indexOf(ch)'),)),
    Case("java-variable-2", "count_vowels", "wrong variable",
         (("s.charAt(i)", "s.charAt(count)"),), (("word.charAt(k)", "word.charAt(n)"),)),
    Case("java-missing", "largest", "missing statement",
         (('throw new IllegalArgumentException("empty");', None),),
         (('if (items.size() == 0) throw', None),)),
    Case("java-operator", "largest", "wrong operator",
         (("x > best", "x < best"),), (("Math.max(", "Math.min("),)),
    Case("java-swapped", "verdict", "swapped branches",
         swap('return "pass";', 'return "fail";'), swap('result = "fail";', 'result = "pass";')),
    Case("java-off-by-one-2", "verdict", "off-by-one bound",
         (("score >= 50", "score > 50"),), (("points >= 50", "points > 50"),)),
    # JavaScript
    Case("js-inverted", "count_matches", "inverted condition",
         (("if (word.startsWith(prefix))", "if (!word.startsWith(prefix))"),),
         (("(w) => w.startsWith(start)", "(w) => !w.startsWith(start)"),)),
    Case("js-variable", "count_matches", "wrong variable",
         (("word.startsWith(prefix)", "word.startsWith(word)"),), (("w.startsWith(start)", "w.startsWith(w)"),)),
    Case("js-off-by-one", "range", "off-by-one bound",
         (("i < stop", "i <= stop"),), (("v < to", "v <= to"),)),
    Case("js-operator", "range", "wrong operator",
         (("i += step", "i -= step"),), (("v = v + by", "v = v - by"),)),
    Case("js-missing", "range", "missing statement",
         (("out.push(i);", None),), (("values.push(v);", None),)),
    Case("js-accumulate", "total_price", "assignment for accumulation",
         (("total += item.price", "total = item.price"),), (("acc + it.price", "it.price"),)),
    Case("js-constant", "total_price", "wrong constant",
         (("total * 100)", "total * 10)"),), (("sum * 100)", "sum * 10)"),)),
    Case("js-operator-2", "total_price", "wrong operator",
         (("item.price * item.quantity", "item.price + item.quantity"),),
         (("it.price * it.quantity", "it.price + it.quantity"),)),
    Case("js-swapped", "sign", "swapped branches",
         swap("return -1;", "return 1;"), swap("return 1;", "return -1;")),
    Case("js-constant-2", "sign", "wrong constant",
         (("return 0;", "return 1;"),), (("return 0;", "return 1;"),)),
    # C++
    Case("cpp-accumulate", "sum_even", "assignment for accumulation",
         (("total += values[i]", "total = values[i]"),), (("s += x", "s = x"),)),
    Case("cpp-inverted", "sum_even", "inverted condition",
         (("values[i] % 2 == 0", "values[i] % 2 != 0"),), (("x % 2 != 0", "x % 2 == 0"),)),
    Case("cpp-constant", "sum_even", "wrong constant",
         (("values[i] % 2", "values[i] % 3"),), (("x % 2", "x % 3"),)),
    Case("cpp-off-by-one", "reverse", "off-by-one bound",
         (("i >= 0", "i > 0"),), (("n - 1 - k", "n - k"),)),
    Case("cpp-constant-2", "reverse", "wrong constant",
         (("(int)s.size() - 1", "(int)s.size() - 2"),), (("n - 1 - k", "n - 2 - k"),)),
    Case("cpp-operator", "gcd", "wrong operator",
         (("b = a % b", "b = a / b"),), (("x % y", "x / y"),)),
    Case("cpp-variable", "gcd", "wrong variable",
         (("return a;", "return b;"),), (("return x;", "return y;"),)),
    Case("cpp-inverted-2", "gcd", "inverted condition",
         (("b != 0", "b == 0"),), (("y == 0", "y != 0"),)),
    Case("cpp-missing", "prefix_sums", "missing statement",
         (("running += x;", None),), (("acc = acc + input[i];", None),)),
    Case("cpp-swapped", "prefix_sums", "swapped branches",
         swap("running += x;", "sums.push_back(running);"), swap("acc = acc + input[i];", "result[i] = acc;")),
)
