#!/usr/bin/env python3
"""Mutation testing of eltwise's C++ sources: change one operator, constant or condition at a
time, rebuild, run the tests that cover the file, and count the mutants the tests kill.

    python3 scripts/mutate.py --build build/mutate --target eltwise_tests \\
        --test "build/mutate/tests/eltwise_tests --gtest_brief=1" src/core/validate.cc \\
        [--jobs 2] [--max 40] [--seed 1] [--lines 10-200] [--json results.jsonl]
        [--survivors-of earlier.jsonl]

Each mutant is one of:
    relational   <  <=  >  >=  ==  !=   (each to its neighbours: < to <=, == to !=, ...)
    logical      && to ||, || to &&
    arithmetic   " + " to " - " and back, " * " to " / " (not on lines that build a message)
    constant     an integer literal n to n + 1 (0 to 1, 1 to 0)
    boolean      true to false and back
    negation     "!" in front of a name or a call removed
Comments, string and character literals, #include and other preprocessor lines are left alone.
A mutant that does not compile is not counted (a type error, not a test's job). A mutant is killed
when the test command exits non-zero or runs past its time limit (--timeout, by default ten times
the unmutated run and at least 10 s: a mutant can make a loop endless); it survived when the
command passes.
The source file is restored after every mutant, also on Ctrl-C or SIGTERM. Run by hand: each mutant is a
rebuild of everything that includes the file.

The score is killed / (killed + survived); survivors are printed with their line and change, to be
killed by a new test or shown equivalent.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

RELATIONAL = {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="]}


def code_mask(text):
    """True for each character that is code: not in a comment, string or character literal, or a
    preprocessor directive (with its continuation lines)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and text[i:].lstrip(" \t").startswith("#"):
            end = text.find("\n", i)
            while 0 < end and text[end - 1] == "\\":  # a directive continued on the next line
                end = text.find("\n", end + 1)
            end = n if end < 0 else end
            for k in range(i, end):
                mask[k] = False
            i = end
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            for k in range(i, end):
                mask[k] = False
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                mask[k] = False
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                mask[k] = False
            i = j + 1
        else:
            i += 1
    return mask


def mutants(text):
    """Every (start, end, replacement, kind) of the file."""
    mask = code_mask(text)
    found = []

    def add(m, group, replacement, kind):
        s, e = m.span(group)
        if all(mask[s:e]):
            found.append((s, e, replacement, kind))

    # Relational: not part of <<, >>, ->, templates' closing >> or <...> is hard to tell apart
    # from comparisons, so only operators with spaces around them (clang-format puts them there).
    for m in re.finditer(r" (<=|>=|==|!=|<|>) ", text):
        for r in RELATIONAL[m.group(1)]:
            add(m, 1, r, "relational")
    for m in re.finditer(r" (&&|\|\|) ", text):
        add(m, 1, "||" if m.group(1) == "&&" else "&&", "logical")
    for m in re.finditer(r" ([+\-*]) (?!=)", text):
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end())]
        if '"' in line:  # building a message: "..." + std::to_string(...) would not compile
            continue
        add(m, 1, {"+": "-", "-": "+", "*": "/"}[m.group(1)], "arithmetic")
    for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.'])", text):
        v = int(m.group(1))
        add(m, 1, "1" if v == 0 else "0" if v == 1 else str(v + 1), "constant")
    for m in re.finditer(r"\b(true|false)\b", text):
        add(m, 1, "false" if m.group(1) == "true" else "true", "boolean")
    for m in re.finditer(r"(!)(?=[A-Za-z_(])", text):
        add(m, 1, "", "negation")
    return found


def run(command, timeout, cwd):
    """(exit status, seconds); status None after a timeout, which kills the command's whole
    process group (a shell's children too: a mutant that loops forever must not keep running)."""
    start = time.monotonic()
    p = subprocess.Popen(command, shell=True, cwd=cwd, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return p.wait(timeout=timeout), time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None, time.monotonic() - start
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--build", required=True, help="a configured build folder")
    parser.add_argument("--target", action="append", required=True, help="targets to rebuild")
    parser.add_argument("--test", required=True, help="shell command: exit 0 = tests pass")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs per rebuild")
    parser.add_argument("--start", type=int, default=1,
                        help="begin at this mutant's number (to resume a run that was stopped)")
    parser.add_argument("--max", type=int, default=0, help="a random sample of this many (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lines", help="only mutants on lines FIRST-LAST")
    parser.add_argument("--timeout", type=float,
                        help="seconds per test run of a mutant (default: 10 x the unmutated run, "
                             "at least 10)")
    parser.add_argument("--json", type=Path, help="append one JSON line per mutant here")
    parser.add_argument("--survivors-of", type=Path,
                        help="only the mutants that survived in this earlier --json file (same "
                             "line text and change), to check new tests against them")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parent.parent
    source = (repo / args.source).resolve() if not args.source.is_absolute() else args.source
    original = source.read_text()
    found = mutants(original)
    if args.lines:
        first, last = (int(x) for x in args.lines.split("-"))
        found = [m for m in found if first <= original.count("\n", 0, m[0]) + 1 <= last]
    if args.survivors_of:
        earlier = [json.loads(line) for line in args.survivors_of.read_text().splitlines() if line]
        wanted = {(r["code"], r["kind"], r["from"], r["to"]) for r in earlier
                  if r["outcome"] == "survived" and r["file"] == str(args.source)}
        lines = original.splitlines()
        found = [m for m in found if (lines[original.count("\n", 0, m[0])].strip(), m[3],
                                      original[m[0]:m[1]], m[2]) in wanted]
    if args.max and len(found) > args.max:
        found = sorted(random.Random(args.seed).sample(found, args.max))
    numbered = list(enumerate(found, 1))[args.start - 1:]
    build = f"cmake --build {args.build} -j{args.jobs} " + " ".join(f"--target {t}" for t in args.target)

    code, _ = run(build, 3600, repo)
    if code != 0:
        sys.exit("mutate: the unmutated tree does not build")
    code, baseline = run(args.test, 3600, repo)
    if code != 0:
        sys.exit("mutate: the tests fail on the unmutated tree")
    limit = args.timeout if args.timeout else max(10.0, 10 * baseline)
    print(f"mutate: {len(found)} mutants of {args.source}; tests take {baseline:.0f} s "
          f"(limit {limit:.0f} s)", flush=True)

    # SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so the source is restored.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    counts = {"killed": 0, "survived": 0, "not compiled": 0}
    survivors = []
    try:
        for k, (s, e, replacement, kind) in numbered:
            line = original.count("\n", 0, s) + 1
            before = original[s:e]
            source.write_text(original[:s] + replacement + original[e:])
            code, _ = run(build, 3600, repo)
            if code != 0:
                outcome = "not compiled"
            else:
                code, seconds = run(args.test, limit, repo)
                outcome = "survived" if code == 0 else "killed"
            counts[outcome] += 1
            text = original.splitlines()[line - 1].strip()
            record = {"file": str(args.source), "line": line, "kind": kind, "from": before,
                      "to": replacement, "outcome": outcome, "code": text}
            if outcome == "survived":
                survivors.append(record)
            if args.json:
                with args.json.open("a") as f:
                    f.write(json.dumps(record) + "\n")
            print(f"[{k}/{len(found)}] {outcome:12} {args.source}:{line} {kind}: "
                  f"'{before}' -> '{replacement}'   {text}", flush=True)
    finally:
        source.write_text(original)
        run(build, 3600, repo)  # leave the build matching the source
    scored = counts["killed"] + counts["survived"]
    score = 100.0 * counts["killed"] / scored if scored else 0.0
    print(f"mutate: {counts['killed']} killed, {counts['survived']} survived, "
          f"{counts['not compiled']} not compiled: score {score:.1f} %")
    for r in survivors:
        print(f"  survivor {r['file']}:{r['line']} {r['kind']}: '{r['from']}' -> '{r['to']}'"
              f"   {r['code']}")


if __name__ == "__main__":
    main()
