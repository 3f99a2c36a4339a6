#!/usr/bin/env python3
"""Keeps docs/errors.md in step with the code.

Every error the library returns is built in one of SOURCES by a call InvalidArgument(...),
Unsupported(...) or Status(StatusCode::kX, ...). For each source file, docs/errors.md has a
section headed with the file name whose table rows list those calls one for one, in source order:
a row's code cell names the status code and its message cell holds every string literal of the
call, in order (computed parts are written as {placeholders}). A new, changed, moved or removed
message makes this check fail and says which row to add or fix.

  usage: docs/check_errors.py [REPO_ROOT]           check (CTest: errors_catalogue)
         docs/check_errors.py [REPO_ROOT] --draft   print draft rows for every error site
"""
import re
import sys
from pathlib import Path

SOURCES = [
    "src/core/validate.cc",
    "src/core/device.cc",
    "src/cpu/cpu_device.cc",
    "src/directml/directml.cc",
]

CALL = re.compile(r"\b(InvalidArgument|Unsupported|Status)\s*\(")
CODE_NAMES = {
    "kInvalidArgument": "invalid_argument",
    "kUnsupported": "unsupported",
    "kOutOfMemory": "out_of_memory",
    "kDeviceError": "device_error",
    "kInternal": "internal",
    "kIoError": "io_error",
}


def strip_comments(text):
    """Blanks // and /* */ comments, keeping string literals and line numbers."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_arguments(text, open_paren):
    """The text between the parenthesis at open_paren and its match."""
    depth, i = 0, open_paren
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[open_paren + 1:i]
        i += 1
    raise ValueError("unbalanced parentheses")


def literals(args):
    """The string literals of args, in order, with C escapes decoded."""
    found = []
    # Adjacent literals ("a " "b") are one string, as in C++.
    for group in re.finditer(r'"(?:[^"\\]|\\.)*"(?:\s*"(?:[^"\\]|\\.)*")*', args):
        pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', group.group(0))
        found.append("".join(bytes(p, "utf-8").decode("unicode_escape") for p in pieces))
    return found


def error_sites(path):
    """[(line, code, [literal, ...])] for every error constructed in path."""
    text = strip_comments(path.read_text())
    sites = []
    for m in CALL.finditer(text):
        kind = m.group(1)
        args = call_arguments(text, m.end() - 1)
        if kind == "Status":
            code = re.match(r"\s*StatusCode::(k\w+)\s*,", args)
            if not code:
                continue  # Status() / Status::Ok() / a declaration, not an error
            code = CODE_NAMES[code.group(1)]
        else:
            code = "invalid_argument" if kind == "InvalidArgument" else "unsupported"
        parts = [s for s in literals(args) if s.strip()]
        if not parts:
            continue  # forwards a message built elsewhere (no literal of its own)
        line = text.count("\n", 0, m.start()) + 1
        sites.append((line, code, parts))
    return sites


def doc_rows(doc_text):
    """{source: [(code, message)]} from the sections of docs/errors.md."""
    rows, current = {}, None
    for line in doc_text.splitlines():
        heading = re.match(r"^#+\s+`([^`]+)`", line)
        if heading:
            current = heading.group(1)
            rows.setdefault(current, [])
            continue
        if current and line.startswith("|") and not re.match(r"^\|\s*-", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or cells[0].lower() == "code":
                continue
            rows[current].append((cells[0].strip("`"), cells[1].strip("`")))
    return rows


def contains_in_order(message, parts):
    pos = 0
    for p in parts:
        found = message.find(p, pos)
        if found < 0:
            return p
        pos = found + len(p)
    return None


def draft(parts):
    return "{…}".join(parts)


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 and not argv[1].startswith("--") else \
        Path(__file__).resolve().parent.parent
    doc_path = root / "docs" / "errors.md"
    if "--draft" in argv:
        for source in SOURCES:
            print(f"## `{source}`\n\n| code | message | rule |\n| --- | --- | --- |")
            for line, code, parts in error_sites(root / source):
                print(f"| `{code}` | `{draft(parts)}` | line {line} |")
            print()
        return 0
    rows = doc_rows(doc_path.read_text())
    problems = []
    for source in SOURCES:
        sites = error_sites(root / source)
        documented = rows.get(source)
        if documented is None:
            problems.append(f"docs/errors.md has no section headed `{source}`")
            continue
        for k, (line, code, parts) in enumerate(sites):
            where = f"{source}:{line}"
            if k >= len(documented):
                problems.append(f"{where}: no row for this {code} error; add one (row {k + 1} of "
                                f"the section): | `{code}` | `{draft(parts)}` | rule |")
                continue
            doc_code, message = documented[k]
            if doc_code != code:
                problems.append(f"{where}: row {k + 1} says {doc_code}, the code returns {code}")
            missing = contains_in_order(message, parts)
            if missing is not None:
                problems.append(f"{where}: row {k + 1} ({message!r}) lacks {missing!r} (the "
                                f"message's literal parts, in order: {parts!r})")
        for k in range(len(sites), len(documented)):
            problems.append(f"docs/errors.md, section `{source}`: row {k + 1} "
                            f"({documented[k][1]!r}) matches no error in the code; remove it")
    if problems:
        print("docs/errors.md does not match the code:")
        for p in problems:
            print("  " + p)
        return 1
    total = sum(len(error_sites(root / s)) for s in SOURCES)
    print(f"docs/errors.md lists all {total} errors of {len(SOURCES)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
