#!/usr/bin/env python3
"""Lists functions longer than a limit, to keep every function short.

Usage: tools/dev/long_functions.py [-n LINES] [--exclude PATH]... [PATH]...

Prints `file:line name length` for every function in the given files or
directories (default: the current directory) whose length, from the first
line of its signature to its closing brace, is over LINES (default 80:
Google C++ style's "prefer small and focused functions" made checkable).
Exits 1 when it printed any, so it can gate a script.

C++ (.cc, .h): a heuristic, not a parser. Comments, string and character
literals and preprocessor lines are blanked out, then braces are matched;
a `{` outside any function whose preceding text ends like a signature (a
`)` followed at most by qualifiers, or a constructor's initializer list)
opens a function, whose nested braces (lambdas, blocks) belong to it.
Shell (.sh): `name() {` or `function name {` to the next `}` at the
function's own indentation.
"""

import argparse
import os
import re
import signal
import subprocess
import sys

CPP_EXTENSIONS = (".cc", ".h", ".cpp", ".hpp")
SHELL_EXTENSIONS = (".sh",)
CONTROL_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                    "decltype", "alignof", "static_assert"}
# What may follow a function's `)` before its `{`.
QUALIFIERS = re.compile(
    r"\)\s*(?:const|volatile|override|final|noexcept(?:\([^()]*\))?|mutable"
    r"|&|&&|->\s*[\w:<>,\s*&]+|\s)*$")


def blank_cpp(text):
    """Returns `text` with comments, literals and preprocessor lines blanked.

    Newlines are kept so that offsets map to the same line numbers.
    """
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # A preprocessor directive, with its backslash continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        prefixed = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        if raw and not prefixed:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def function_name(header):
    """The name in a function's signature: the identifier before its `(`."""
    depth_angle = 0
    for m in re.finditer(r"operator\s*\S+?\s*\(|[<>()]", header):
        token = m.group(0)
        if token.startswith("operator"):
            if depth_angle == 0:
                before = re.search(r"[\w:~]*$", header[:m.start()]).group(0)
                return before + token[:-1].strip()
            continue
        if token == "<":
            depth_angle += 1
        elif token == ">":
            depth_angle = max(0, depth_angle - 1)
        elif token == "(" and depth_angle == 0:
            before = header[:m.start()].rstrip()
            if before.endswith("]"):
                return "lambda"
            # Drop an explicit specialization's arguments: `F<double>(`.
            while before.endswith(">"):
                depth, k = 0, len(before) - 1
                while k >= 0:
                    depth += {">": 1, "<": -1}.get(before[k], 0)
                    if depth == 0:
                        break
                    k -= 1
                before = before[:k].rstrip()
            name = re.search(r"[\w:~]*$", before).group(0)
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", name.split(":")[-1] or "_"):
                # A macro such as TEST(Suite, Name): name it by its arguments.
                close = header.find(")", m.end())
                return name + header[m.start():close + 1]
            return name
    return "?"


def is_function_header(header):
    """Whether `header`, the text before a `{`, ends a function signature."""
    header = header.strip()
    if re.match(r"(?:namespace|class|struct|union|enum|extern)\b", header):
        return False
    # `) const`, `) override`, ... or a constructor's `) : a_(x), b_{y}`.
    if not (QUALIFIERS.search(header) or
            re.search(r"\)\s*:[^;]*[)}]$", header, re.S)):
        return False
    return function_name(header) not in CONTROL_KEYWORDS | {"?", ""}


def cpp_functions(path, text):
    """Yields (line, name, length) for each function in a C++ file."""
    code = blank_cpp(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, c in enumerate(code):
        line_of[i] = line
        if c == "\n":
            line += 1
    line_of[len(code)] = line

    stack = []  # True for a function body, False for other scopes
    header_start = 0  # offset just after the last ; { or }
    function_start = None
    parens = 0  # open parentheses in the current header
    for i, c in enumerate(code):
        if not any(stack) and c in "()":
            parens = max(0, parens + (1 if c == "(" else -1))
            continue
        if parens > 0:
            continue  # a brace in a header: a default argument `= {}`
        if c == "{":
            if any(stack):
                stack.append(False)
            else:
                header = code[header_start:i]
                if header.strip() and is_function_header(header):
                    start = header_start + (len(header) - len(header.lstrip()))
                    name = re.sub(r"\s+", "", function_name(header))
                    function_start = (line_of[start], name)
                    stack.append(True)
                else:
                    stack.append(False)
            header_start = i + 1
        elif c == "}":
            if stack:
                was_function = stack.pop()
                if was_function and not any(stack):
                    start_line, name = function_start
                    yield start_line, name, line_of[i] - start_line + 1
            header_start = i + 1
        elif c == ";" and not any(stack):
            header_start = i + 1


def shell_functions(path, text):
    """Yields (line, name, length) for each function in a shell script."""
    lines = text.split("\n")
    start = re.compile(
        r"^(\s*)(?:function\s+)?([\w:.-]+)\s*(?:\(\s*\))?\s*\{\s*$")
    for number, line in enumerate(lines, 1):
        m = start.match(line)
        if not m or not ("()" in line or line.lstrip().startswith("function")):
            continue
        indent = m.group(1)
        for end in range(number, len(lines)):
            if re.match(re.escape(indent) + r"\}", lines[end]):
                yield number, m.group(2), end + 1 - number + 1
                break


def source_files(paths, excluded):
    for path in paths:
        if os.path.isfile(path):
            candidates = [path]
        else:
            listed = subprocess.run(["git", "ls-files", "--", path],
                                    capture_output=True, text=True)
            if listed.returncode == 0 and listed.stdout.strip():
                candidates = listed.stdout.split()
            else:
                candidates = [os.path.join(d, f)
                              for d, _, fs in os.walk(path) for f in fs]
        for f in sorted(candidates):
            if os.path.normpath(f) in excluded:
                continue
            if f.endswith(CPP_EXTENSIONS + SHELL_EXTENSIONS):
                yield f


def main():
    parser = argparse.ArgumentParser(
        description="Lists functions longer than a limit.")
    parser.add_argument("-n", "--lines", type=int, default=80,
                        help="report functions longer than this (default 80)")
    parser.add_argument("--exclude", action="append", default=[],
                        metavar="PATH", help="skip this file (repeatable)")
    parser.add_argument("paths", nargs="*", default=["."],
                        help="files or directories (default: .)")
    args = parser.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    excluded = {os.path.normpath(p) for p in args.exclude}

    found = False
    for path in source_files(args.paths, excluded):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        finder = shell_functions if path.endswith(SHELL_EXTENSIONS) \
            else cpp_functions
        for line, name, length in finder(path, text):
            if length > args.lines:
                print(f"{path}:{line} {name} {length}")
                found = True
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
