#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Size and shape limits of kvsize's code (issue 12): no header over 400 lines, no function over
80 lines, unless an explicit allow entry with a reason says why.

    python3 tools/check-sizes.py [--root DIR] [--list] [PATH...]

Scans include/**/*.hpp and examples/kvsize/*.{hpp,cpp} under the root (default: the repository
this script is in), or the PATHs given. Exit 0: nothing over the limits without a reason; 1: a
finding (one line each, `file:line: ...`, on stdout); 2: a usage error. --list also prints the
allowed ones and their reasons.

Allow entries, each needing a reason after the colon:
  * `// long-function: <why>` in the comment block directly above a function (its doc comment);
  * `// long-header: <why>` on any line of a header;
  * a line `<path> <function>|<header> -- <why>` in tools/check-sizes.allow, for a file whose owner
    cannot add the comment yet. An entry that no longer matches anything is itself a finding, so the
    list only shrinks.

What counts as a function: this code base is clang-format'd, so a definition's body opens with `{` at
the end of its signature. The scan blanks comments, string and character literals (raw strings and
digit separators included) and preprocessor lines, then walks the braces. At namespace or class
scope a `{` opens
  * a namespace or `extern "C"` block, or a class/struct/union body: scanned for what they hold;
  * an enum, or an initializer (a `=` at the head's top level, or no parentheses in the head):
    data, skipped whole, however long (a table is not a function);
  * a lambda bound at namespace scope (`= [...] ... {`): one function, named by its variable;
  * otherwise (a parenthesised head: `f(...) const -> T {`, a constructor with its initializer
    list, an operator): one function, from the first line of its head (template and attribute
    lines included) to its closing brace.
Inside a function every brace, a lambda's or a local class's, belongs to that function.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

MAX_HEADER_LINES = 400
MAX_FUNCTION_LINES = 80
ALLOW_FILE = "tools/check-sizes.allow"
HEADER_SUFFIXES = (".hpp", ".h")

FUNCTION_ALLOW = re.compile(r"^\s*//+\s*long-function:(.*)$")
HEADER_ALLOW = re.compile(r"^\s*//+\s*long-header:(.*)$")
IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass
class Function:
    name: str  # qualified by enclosing classes: `vllm_engine::size_stage`
    first: int  # 1-based line of the head's first character
    last: int  # 1-based line of the closing brace

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


def blank(text: str) -> str:
    """`text` with comments, string/character literals and preprocessor lines replaced by spaces
    (newlines kept, so offsets and line numbers stay those of the file). A literal keeps its quotes
    so that `extern "C"` still reads as such."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True  # only whitespace since the last newline

    def wipe(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":  # a preprocessor line, with its `\` continuations
            j = i
            while j < n:
                e = text.find("\n", j)
                e = n if e < 0 else e
                if e > 0 and text[e - 1] == "\\":
                    j = e + 1
                    continue
                j = e
                break
            wipe(i, j)
            i = j
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            e = text.find("\n", i)
            e = n if e < 0 else e
            wipe(i, e)
            i = e
            continue
        if text.startswith("/*", i):
            e = text.find("*/", i + 2)
            e = n if e < 0 else e + 2
            wipe(i, e)
            i = e
            continue
        raw = re.match(r'(?:u8|[uUL])?R"([^()\\\s]{0,16})\(', text[i : i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            e = text.find(close, i + raw.end())
            e = n if e < 0 else e + len(close)
            wipe(i + 1, e - 1)
            i = e
            continue
        if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
            prev = i - 1  # a digit separator (1'024) unless the "number" is a literal prefix (u8'x')
            while prev > 0 and (text[prev - 1].isalnum() or text[prev - 1] in "_."):
                prev -= 1
            if text[prev].isdigit():
                i += 1
                continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, min(j, n))
            i = j + 1
            continue
        i += 1
    return "".join(out)


def matching(code: str, open_at: int) -> int:
    """Offset of the `}` that closes the `{` at `open_at` (len(code) if none)."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


def strip_templates(head: str) -> str:
    """`head` without leading `template <...>` clauses, attributes and access specifiers."""
    while True:
        head = head.lstrip()
        m = re.match(r"(public|private|protected)\s*:(?!:)", head)
        if m:
            head = head[m.end() :]
            continue
        if head.startswith("[["):
            e = head.find("]]")
            head = head[e + 2 :] if e >= 0 else ""
            continue
        m = re.match(r"template\s*<", head)
        if not m:
            return head
        depth, k = 0, m.end() - 1
        while k < len(head):
            if head[k] == "<":
                depth += 1
            elif head[k] == ">":
                depth -= 1
                if depth == 0:
                    break
            elif head[k] == "(":  # template <std::size_t N = (1 > 0)>: skip parenthesised parts
                k = skip_parens(head, k)
                continue
            k += 1
        head = head[k + 1 :]


def skip_parens(s: str, k: int) -> int:
    """Offset just past the `)` that closes the `(` at `k`."""
    depth = 0
    while k < len(s):
        if s[k] == "(":
            depth += 1
        elif s[k] == ")":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return k


def top_level(head: str) -> str:
    """`head` with every parenthesised part replaced by `()`."""
    out, k = [], 0
    while k < len(head):
        if head[k] == "(":
            e = skip_parens(head, k)
            out.append("()")
            k = e
        else:
            out.append(head[k])
            k += 1
    return "".join(out)


def has_assignment(flat: str) -> bool:
    """A lone `=` (not ==, <=, >=, !=, nor part of `operator=`)."""
    flat = re.sub(r"operator\s*[^\s(]*", "operator_", flat)
    return re.search(r"(?<![=<>!+\-*/%&|^])=(?!=)", flat) is not None


def classify(head: str) -> tuple[str, str]:
    """What a `{` at namespace/class scope opens, and a name: one of namespace, class, data,
    function."""
    h = strip_templates(head)
    words = h.split()
    if not words:
        return "data", ""  # a bare block
    if words[0] == "namespace" or (words[0] == "extern" and h[6:].lstrip().startswith('"')):
        return "namespace", ""
    flat = top_level(h)
    if words[0] in ("enum",):
        return "data", ""
    if words[0] in ("struct", "class", "union") and not has_assignment(flat):
        m = re.match(r"(?:struct|class|union)\s+(?:alignas\s*\(\)\s*)?(?:\[\[.*?\]\]\s*)?([A-Za-z_]\w*)", flat)
        return "class", m.group(1) if m else "<anonymous>"
    if has_assignment(flat):
        lhs, _, rhs = re.sub(r"operator\s*[^\s(]*", "operator_", flat).partition("=")
        if rhs.lstrip().startswith("["):
            names = IDENT.findall(lhs)
            return "function", names[-1] if names else "<lambda>"
        return "data", ""
    if "(" not in flat:
        return "data", ""
    return "function", function_name(h)


def function_name(h: str) -> str:
    m = re.search(r"operator\s*(\(\s*\)|[^\s(]+)\s*\(", h)
    if m:
        return "operator" + re.sub(r"\s+", "", m.group(1))
    k = h.find("(")
    names = IDENT.findall(h[:k])
    qual = re.search(r"((?:[A-Za-z_]\w*\s*::\s*)*~?[A-Za-z_]\w*)\s*$", h[:k])
    if qual:
        return re.sub(r"\s+", "", qual.group(1))
    return names[-1] if names else "<function>"


def ctor_init_colon(head: str) -> bool:
    """True once `head` has reached a constructor's member-initializer list: a `:` (not `::`) after
    the top-level parameter list."""
    flat = top_level(strip_templates(head))
    return re.search(r"\)[^:]*?(?<!:):(?!:)", flat) is not None


def functions_in(code: str) -> list[Function]:
    """Every function defined at namespace or class scope in `code` (already blanked)."""
    found: list[Function] = []
    line_of = LineIndex(code)

    def scan(begin: int, end: int, scope: list[str]) -> None:
        head_start = begin
        k = begin
        paren = 0
        while k < end:
            c = code[k]
            if c == "(":
                paren += 1
            elif c == ")":
                paren -= 1
            elif c == ";" and paren == 0:
                head_start = k + 1
            elif c == "}":
                head_start = k + 1
            elif c == "{":
                head = code[head_start:k]
                close = matching(code, k)
                stripped = head.rstrip()
                if paren > 0 or (ctor_init_colon(head) and stripped and (stripped[-1].isalnum() or stripped[-1] in "_>")):
                    k = close + 1  # a braced default argument, or a member's braced initializer
                    continue
                kind, name = classify(head)
                if kind == "namespace":
                    scan(k + 1, close, scope)
                elif kind == "class":
                    scan(k + 1, close, scope + [name])
                elif kind == "function":
                    access = re.match(r"\s*(?:(?:public|private|protected)\s*:(?!:)\s*)*", head)
                    first = head_start + access.end()
                    found.append(Function("::".join(scope + [name]), line_of(first), line_of(close)))
                head_start = close + 1
                k = close + 1
                continue
            k += 1

    scan(0, len(code), [])
    return found


class LineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        lo, hi = 0, len(self.starts)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1


def allow_comment(lines: list[str], first: int) -> str | None:
    """The reason of a `// long-function:` comment in the comment block directly above line
    `first` (1-based); "" when the marker has no reason; None when there is none."""
    k = first - 2
    while k >= 0 and lines[k].lstrip().startswith("//"):
        m = FUNCTION_ALLOW.match(lines[k])
        if m:
            return m.group(1).strip()
        k -= 1
    return None


@dataclass
class AllowEntry:
    line: int
    path: str
    what: str  # a function's (qualified) name, or <header>
    reason: str
    used: bool = False


def read_allow_file(path: Path) -> tuple[list[AllowEntry], list[str]]:
    entries, problems = [], []
    if not path.exists():
        return entries, problems
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        m = re.match(r"^\s*(\S+)\s+(\S+)\s+--\s*(.*)$", text)
        if not m or not m.group(3).strip():
            problems.append(f"{ALLOW_FILE}:{number}: an entry is `<path> <function>|<header> -- <reason>`, "
                            f"with a reason; got {text.strip()!r}")
            continue
        entries.append(AllowEntry(number, m.group(1), m.group(2), m.group(3).strip()))
    return entries, problems


def find_allow(entries: list[AllowEntry], rel: str, what: str) -> AllowEntry | None:
    for e in entries:
        if e.path == rel and (e.what == what or e.what == what.split("::")[-1]):
            e.used = True
            return e
    return None


def default_files(root: Path) -> list[Path]:
    files = sorted((root / "include").rglob("*.hpp"))
    kv = root / "examples" / "kvsize"
    files += sorted(p for p in kv.glob("*") if p.suffix in (".hpp", ".cpp"))
    return files


def check(root: Path, files: list[Path], show_allowed: bool) -> int:
    entries, problems = read_allow_file(root / ALLOW_FILE)
    allowed: list[str] = []
    for path in files:
        rel = path.resolve().relative_to(root.resolve()).as_posix() if path.resolve().is_relative_to(root.resolve()) else str(path)
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        if path.suffix in HEADER_SUFFIXES and len(lines) > MAX_HEADER_LINES:
            reasons = [m.group(1).strip() for m in map(HEADER_ALLOW.match, lines) if m]
            entry = find_allow(entries, rel, "<header>")
            where = f"{rel}:1: header has {len(lines)} lines (limit {MAX_HEADER_LINES})"
            if reasons and reasons[0]:
                allowed.append(f"{where}: allowed: {reasons[0]}")
            elif reasons:
                problems.append(f"{where}: `// long-header:` needs a reason after the colon")
            elif entry:
                allowed.append(f"{where}: allowed by {ALLOW_FILE}:{entry.line}: {entry.reason}")
            else:
                problems.append(f"{where}; split it by concept, or say why with `// long-header: <why>`")
        for f in functions_in(blank(text)):
            if f.lines <= MAX_FUNCTION_LINES:
                continue
            where = f"{rel}:{f.first}: function {f.name} has {f.lines} lines (limit {MAX_FUNCTION_LINES})"
            reason = allow_comment(lines, f.first)
            entry = find_allow(entries, rel, f.name)
            if reason:
                allowed.append(f"{where}: allowed: {reason}")
            elif reason == "":
                problems.append(f"{where}: `// long-function:` needs a reason after the colon")
            elif entry:
                allowed.append(f"{where}: allowed by {ALLOW_FILE}:{entry.line}: {entry.reason}")
            else:
                problems.append(f"{where}; split it into named steps, or say why with "
                                f"`// long-function: <why>` on the line above")
    scanned = {p.resolve() for p in files}
    for e in entries:
        if not e.used and (root / e.path).resolve() in scanned:
            problems.append(f"{ALLOW_FILE}:{e.line}: stale entry {e.path} {e.what}: nothing over the limits "
                            f"matches it any more; delete the line")
    if show_allowed:
        for a in allowed:
            print(a)
    for p in problems:
        print(p)
    return 1 if problems else 0


# Known cases the scan must get right, run by `--self-test` (a ctest of its own): each is a snippet
# and the functions (qualified name, lines) it must find, no more.
SELF_TEST_CASES: list[tuple[str, str, list[tuple[str, int]]]] = [
    ("a lambda inside a function belongs to it",
     "inline auto f(int x) -> int {\n  const auto g = [&](int y) {\n    return y;\n  };\n  return g(x);\n}\n",
     [("f", 6)]),
    ("a class body is not a function; its members are",
     "struct s : base<s> {\n  int a{0};\n  std::array<int, 2> t{{1, 2}};\n"
     "  [[nodiscard]] constexpr auto get() const -> int {\n    return a;\n  }\n"
     "  static constexpr auto n = 3;\n};\n",
     [("s::get", 3)]),
    ("template and attribute lines are part of the head",
     "template <typename T, std::size_t N = (1 > 0)>\n  requires std::is_integral_v<T>\n"
     "[[nodiscard]] constexpr auto h(T t) noexcept -> T {\n  return t;\n}\n",
     [("h", 5)]),
    ("a constructor's braced member initializers are not bodies",
     "class c {\n public:\n  explicit c(int a) : a_{a}, b_(a) {\n    check();\n  }\n\n private:\n  int a_; int b_;\n};\n",
     [("c::c", 3)]),
    ("braces in a default argument, a string, a char, a raw string, a comment",
     "void k(opts o = {}, std::string s = \"{\") {\n  char c = '{';\n  auto r = R\"x({\"a\": 1})x\";\n"
     "  // }\n  /* } */\n  int big = 1'000'000;\n}\n",
     [("k", 7)]),
    ("enums, tables and concepts are data, however long",
     "enum class e : int {\n  a,\n  b,\n};\ninline constexpr std::array<int, 3> table{\n  1,\n  2,\n  3,\n};\n"
     "inline constexpr std::array t2 = {row{.f = [](int x) { return x; }}};\n"
     "template <class E>\nconcept engine = requires(E e) {\n  e.size();\n};\n",
     []),
    ("a lambda bound at namespace scope is one function; operators are named",
     "inline constexpr std::array<int, 2> all = [] {\n  std::array<int, 2> a{};\n  return a;\n}();\n"
     "constexpr auto operator|(knob a, knob b) -> knob {\n  return a;\n}\n"
     "auto operator()(int) const -> bool {\n  return true;\n}\n",
     [("all", 4), ("operator|", 3), ("operator()", 3)]),
    ("namespaces and extern blocks are scanned through; a preprocessor line is no head",
     "namespace a::b {\n#if X\nextern \"C\" {\n#endif\nint q() {\n  return 1;\n}\n}\n}  // namespace a::b\n",
     [("q", 3)]),
    ("a function's local struct belongs to it",
     "void m() {\n  struct frame {\n    int a;\n  };\n  frame f{};\n}\n",
     [("m", 6)]),
]


def self_test() -> int:
    failed = 0
    for title, code, expected in SELF_TEST_CASES:
        got = [(f.name, f.lines) for f in functions_in(blank(code))]
        if got != expected:
            failed += 1
            print(f"self-test FAILED: {title}: expected {expected}, got {got}")
    print(f"self-test: {len(SELF_TEST_CASES) - failed}/{len(SELF_TEST_CASES)} cases pass")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--list", action="store_true", help="also print what is allowed, and why")
    parser.add_argument("--functions", action="store_true",
                        help="print every function found with its line span (to check the scan by hand)")
    parser.add_argument("--self-test", action="store_true", help="check the scan against its known cases")
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    files = args.paths or default_files(args.root)
    for p in files:
        if not p.is_file():
            print(f"check-sizes: {p}: no such file", file=sys.stderr)
            return 2
    if args.functions:
        for p in files:
            for f in functions_in(blank(p.read_text(encoding="utf-8"))):
                print(f"{p}:{f.first}-{f.last}: {f.lines:4d} {f.name}")
        return 0
    return check(args.root, files, args.list)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
