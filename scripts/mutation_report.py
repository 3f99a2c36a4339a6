#!/usr/bin/env python3
"""The mutation-testing tables of docs/reliability.md, from the recorded runs.

    python3 scripts/mutation_report.py [--data docs/data/mutation] [docs/reliability.md]
    python3 scripts/mutation_report.py --check docs/reliability.md   (exit 1 if the section is stale)

Reads every NAME.jsonl in the data folder (one line per mutant, as scripts/mutate.py --json writes
them) and, where there is one, NAME_verdicts.tsv: a header line, then one line per surviving mutant
of the first run, tab-separated: file, line, kind, from, to, verdict and the reason. Verdicts:
killed-by-test (the reason names the test; the run's record must say killed), killed-by-bounds-check
(the test named kills it only in a build with _GLIBCXX_ASSERTIONS, as the asan preset has: an index
one past an array, which a plain build reads silently) and equivalent (no input can tell). A
mutant matches a verdict by file, line, kind, from and to. It writes, per run: killed, survived
and not compiled per file, the raw score killed / (killed + survived), the score counting the
equivalent survivors out, the survivors with their verdicts, and the earlier survivors that later
tests kill. The section lies between the
markers of bench/doc_sections.py (`<!-- mutation_report: begin DATA -->`, `... end -->`).
"""

import argparse
import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import doc_sections  # noqa: E402

SECTION = "mutation_report"
VERDICTS = ("killed-by-test", "killed-by-bounds-check", "equivalent")


class ReportError(Exception):
    pass


def key(record):
    return (record["file"], int(record["line"]), record["kind"], record["from"], record["to"])


def read_verdicts(path):
    """{(file, line, kind, from, to): (verdict, reason)} of a *_verdicts.tsv (empty if none)."""
    if not path.exists():
        return {}
    verdicts = {}
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    for n, row in enumerate(rows, 2):
        if row.get("verdict") not in VERDICTS or not row.get("reason"):
            raise ReportError(f"{path}:{n}: a verdict must be one of {VERDICTS}, with a reason")
        verdicts[key(row)] = (row["verdict"], row["reason"])
    return verdicts


def percent(part, whole):
    return f"{100.0 * part / whole:.1f} %" if whole else "–"


def mutant(record):
    return f"`{record['from']}` → `{record['to']}` ({record['kind']})".replace("|", "\\|")


def cell(text):
    return text.replace("|", "\\|")


def report_run(jsonl, data):
    """The Markdown of one run."""
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines() if line]
    verdicts = read_verdicts(jsonl.with_name(jsonl.stem + "_verdicts.tsv"))
    files = sorted({r["file"] for r in records})
    out = [f"**`{jsonl.stem}`** (`{data}/{jsonl.name}`, {len(records)} mutants):", "",
           "| file | killed | survived | not compiled | raw score | equivalent | score, equivalent out |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    totals = [0, 0, 0, 0]
    for name in files + [None]:
        if name is None:
            killed, survived, failed, equivalent = totals
            label = "**all**"
        else:
            mine = [r for r in records if r["file"] == name]
            killed = sum(r["outcome"] == "killed" for r in mine)
            survived = sum(r["outcome"] == "survived" for r in mine)
            failed = sum(r["outcome"] == "not compiled" for r in mine)
            equivalent = sum(r["outcome"] == "survived" and
                             verdicts.get(key(r), ("",))[0] == "equivalent" for r in mine)
            for i, v in enumerate((killed, survived, failed, equivalent)):
                totals[i] += v
            label = f"`{name}`"
        out.append(f"| {label} | {killed} | {survived} | {failed} | "
                   f"{percent(killed, killed + survived)} | {equivalent} | "
                   f"{percent(killed, killed + survived - equivalent)} |")
    survivors = [r for r in records if r["outcome"] == "survived"]
    if survivors:
        out += ["", "Survivors:", "", "| file:line | mutant | verdict | why |", "| --- | --- | --- | --- |"]
        for r in sorted(survivors, key=key):
            verdict, reason = verdicts.get(key(r), ("**none yet**", ""))
            if verdict == "killed-by-test":  # a verdict the run does not bear out
                verdict, reason = "**survived its test**", reason
            out.append(f"| `{r['file']}:{r['line']}` | {mutant(r)} | {verdict} | {cell(reason)} |")
    outcome = {key(r): r["outcome"] for r in records}
    later = [(k, reason) for k, (verdict, reason) in sorted(verdicts.items())
             if verdict == "killed-by-test" and outcome.get(k) == "killed"]
    if later:
        out += ["", "Survivors of an earlier run that later tests kill:", "",
                "| file:line | mutant | test |", "| --- | --- | --- |"]
        for (file, line, kind, before, after), reason in later:
            record = {"kind": kind, "from": before, "to": after}
            out.append(f"| `{file}:{line}` | {mutant(record)} | {cell(reason)} |")
    return "\n".join(out) + "\n"


def report(data):
    runs = sorted((REPO / data).glob("*.jsonl"))
    if not runs:
        raise ReportError(f"no *.jsonl in {data}")
    return "\n".join(report_run(run, data) for run in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("doc", nargs="?", default=str(REPO / "docs" / "reliability.md"))
    parser.add_argument("--data", help="the folder of the runs (default: the section's, else "
                                       "docs/data/mutation)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless the document's section is what this writes")
    args = parser.parse_args()
    doc = Path(args.doc)
    try:
        text = doc.read_text(encoding="utf-8")
        data = args.data or doc_sections.arguments(text, SECTION) or "docs/data/mutation"
        return doc_sections.check_or_write(doc, text, SECTION, report(data),
                                           "scripts/mutation_report.py", args.check, data)
    except (doc_sections.SectionError, ReportError, OSError, KeyError, ValueError) as error:
        print(f"mutation_report: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
