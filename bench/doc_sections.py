"""Generated sections of Markdown documents: the text between

    <!-- NAME: begin [ARGS] -->
    ...
    <!-- NAME: end -->

belongs to the program NAME, which rewrites it (replace) or checks that it is what the program
would write now (matches). ARGS, optional, are what the program read to write the section (e.g.
the data folder), so that a check can regenerate it without being told.
"""

import re
import sys


class SectionError(Exception):
    pass


def _find(text, name):
    """(start of the begin marker, end of the begin marker's line, start of the end marker,
    ARGS) of NAME's section in text."""
    begin = re.compile(r"<!-- " + re.escape(name) + r": begin(?: (?P<args>[^\n]*?))? -->\n")
    found = list(begin.finditer(text))
    if len(found) != 1:
        raise SectionError(f"{len(found)} '<!-- {name}: begin -->' markers (one expected)")
    end_marker = f"<!-- {name}: end -->"
    end = text.find(end_marker, found[0].end())
    if end < 0:
        raise SectionError(f"no '{end_marker}' after the begin marker")
    return found[0].start(), found[0].end(), end, found[0].group("args") or ""


def arguments(text, name):
    """The ARGS of NAME's begin marker ("" when it has none)."""
    return _find(text, name)[3]


def section(text, name):
    """The current body of NAME's section."""
    _, body_start, body_end, _ = _find(text, name)
    return text[body_start:body_end]


def replace(text, name, body, args=None):
    """text with NAME's section body replaced by body (and its ARGS by args, when given)."""
    start, body_start, body_end, old_args = _find(text, name)
    args = old_args if args is None else args
    marker = f"<!-- {name}: begin{' ' + args if args else ''} -->\n"
    if body and not body.endswith("\n"):
        body += "\n"
    return text[:start] + marker + body + text[body_end:]


def check_or_write(path, text, name, body, program, check, args=None):
    """With check: 0 if NAME's section of `text` (the document at path) is body, else 1 and a
    message naming `program` on stderr. Without: writes the document with body as the section
    (and args as its ARGS, when given) if that changes it, and gives 0."""
    if check:
        if section(text, name) == body:
            return 0
        print(f"{path}: the '{name}' section is stale; run {program}", file=sys.stderr)
        return 1
    new = replace(text, name, body, args)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


def regenerate(path, name, text_of_file, program, check):
    """check_or_write for NAME's section of the document at path, its body the texts that
    text_of_file gives for the data files named in its begin marker's ARGS, a blank line apart."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = [text_of_file(p).rstrip("\n") + "\n" for p in arguments(text, name).split()]
    return check_or_write(path, text, name, "\n".join(parts), program, check)


def replace_in_file(path, name, body, args=None):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(replace(text, name, body, args))
