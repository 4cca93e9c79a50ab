#!/usr/bin/env python3
"""The results at a glance (issue 14): one Markdown table, a row per benchmark and budget, of
FullKV, the best baseline and two RippleKV settings, each RippleKV cell with its paired
difference from the best baseline (95% bootstrap interval) and the verdict. Nothing is
recomputed: every number is read from the `ripplekv table` outputs (longbench.csv or
fidelity.csv, and paired.csv or fidelity_paired.csv) of the folders a spec file names.

    .venv/bin/python scripts/results/headline.py configs/results/headline.ini \\
        --latex results/headline.tex --readme README.md > results/headline.md

The spec is an INI file, a section per benchmark (its title is the row's first cell):
    tables  = folder holding the `ripplekv table` outputs (relative to the repository root)
    kind    = ruler (a score: higher is better) or fidelity (KL to the full cache: lower is better)
    budgets = the budgets to show, comma-separated (default: every budget both settings ran)
    default = the Method label of the default setting's rows (exactly as in the CSV)
    strong  = the Method label of the setting to show beside it
              (either may be `none` where the benchmark did not run that setting: its cells
              read "not run" and count in neither tally)
    default_tables, strong_tables = another folder for that setting (its own paired rows and
              best baseline; the cell names that baseline where it is not the row's)
    full_tables = another folder for the FullKV score (the same samples)
and one [columns] section: default_title, strong_title (the two RippleKV column titles).
A label or budget the folder lacks is an error naming the section, the file and what it holds.
"""
import argparse
import configparser
import csv
import os
import sys


def fail(message):
    sys.exit(f"headline.py: {message}")


def read_csv(path, where):
    """The rows of a CSV as (header, lists); where: the spec section and key that named its folder."""
    if not os.path.isfile(path):
        hint = ""
        folder = os.path.dirname(path)
        if os.path.basename(path) == "longbench.csv" and os.path.isfile(os.path.join(folder, "fidelity.csv")):
            hint = " (the folder holds fidelity tables: set kind = fidelity)"
        fail(f"{where}: {path} is missing{hint}; write it with `ripplekv table --runs RUNS --out {folder}`")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        fail(f"{where}: {path} is empty")
    return rows[0], rows[1:]


def columns(header, names, path):
    """The positions of the columns names in header, or an error naming the file and column."""
    missing = [n for n in names if n not in header]
    if missing:
        fail(f"{path} has no column {missing[0]!r} (it has {header}); rewrite it with this ripplekv's `table`")
    return [header.index(n) for n in names]


def to_float(text, path, column, line):
    try:
        return float(text)
    except ValueError:
        fail(f"{path} line {line}: column {column!r} holds {text!r}, not a number")


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class Tables:
    """One folder's scores (method, budget) -> Avg or KL mean, and paired rows (method, budget) -> dict."""

    def __init__(self, folder, kind, where):
        folder = os.path.join(ROOT, folder)  # an absolute folder stays as it is
        self.kind = kind
        stem, value_name = ("fidelity", "kl_mean") if kind == "fidelity" else ("longbench", "avg")
        self.scores_file = os.path.join(folder, f"{stem}.csv")
        header, rows = read_csv(self.scores_file, where)
        method, budget, row_kind, value = columns(header, ("Method", "Budget", "row_kind", value_name), self.scores_file)
        self.scores = {}
        for line, row in enumerate(rows, start=2):
            if row[row_kind] not in ("run", "full"):
                continue
            key = (row[method], row[budget])
            if key in self.scores:
                fail(f"{self.scores_file} line {line}: a second row {key[0]!r} at budget {key[1]} "
                     f"(a table of two models or datasets? name a folder of one)")
            self.scores[key] = to_float(row[value], self.scores_file, value_name, line)
        self.paired_file = os.path.join(folder, "fidelity_paired.csv" if kind == "fidelity" else "paired.csv")
        header, rows = read_csv(self.paired_file, where)
        diff = "kl_difference" if kind == "fidelity" else "avg_difference"
        method, budget, best, twin, d, lo, hi = columns(
            header, ("Method", "Budget", "Best baseline", "Uniform, same selector", diff, "ci_lo", "ci_hi"), self.paired_file)
        # two columns named "Verdict": against the best baseline, then against the uniform twin
        verdicts = [i for i, name in enumerate(header) if name == "Verdict"]
        if len(verdicts) != 2:
            fail(f"{self.paired_file}: expected two Verdict columns (best baseline, uniform twin); "
                 f"rewrite it with this ripplekv's `table`")
        self.paired = {}
        for line, row in enumerate(rows, start=2):
            key = (row[method], row[budget])
            if key in self.paired:
                fail(f"{self.paired_file} line {line}: a second paired row {key[0]!r} at budget {key[1]} "
                     f"(a table of two models or datasets? name a folder of one)")
            self.paired[key] = {
                "best": row[best], "twin": row[twin], "verdict": row[verdicts[0]], "twin_verdict": row[verdicts[1]],
                "diff": to_float(row[d], self.paired_file, diff, line), "lo": to_float(row[lo], self.paired_file, "ci_lo", line),
                "hi": to_float(row[hi], self.paired_file, "ci_hi", line)}

    def best_baseline(self, section, budget):
        names = {row["best"] for (_, b), row in self.paired.items() if b == budget}
        if len(names) != 1:
            fail(f"[{section}]: {self.paired_file} names {len(names)} best baselines at budget {budget} "
                 f"({sorted(names)}); expected one")
        return names.pop()

    def budgets(self, method):
        return [b for (m, b) in self.paired if m == method]

    def score(self, section, method, budget):
        key = (method, budget)
        if key not in self.scores:
            held = sorted({m for (m, b) in self.scores if b == budget})
            fail(f"[{section}]: {self.scores_file} has no row {method!r} at budget {budget} (it holds {held})")
        return self.scores[key]

    def pair(self, section, method, budget):
        key = (method, budget)
        if key not in self.paired:
            ran = self.budgets(method)
            held = f"it has that label at budgets {ran}" if ran else f"it holds {sorted({m for (m, _) in self.paired})}"
            fail(f"[{section}]: {self.paired_file} has no paired row {method!r} at budget {budget} ({held})")
        return self.paired[key]


def number(x, kind, signed=False):
    digits = 3 if kind == "fidelity" else 2
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


NOT_RUN = "none"


class NotRun:
    """A setting the benchmark did not run (`default = none`): its cell says so, counted nowhere."""

    def count(self, counts):
        pass

    def markdown(self):
        return "not run"

    def latex(self):
        return "not run"


class Cell:
    """One RippleKV setting at one budget: its score and its paired rows."""

    def __init__(self, section, tables, label, budget, row_baseline):
        """row_baseline: (name, printed score) of the row's best baseline."""
        pair = tables.pair(section, label, budget)
        self.kind = tables.kind
        self.value = tables.score(section, label, budget)
        self.diff, self.lo, self.hi = pair["diff"], pair["lo"], pair["hi"]
        self.verdict = pair["verdict"]
        # The cell's own best baseline where it is not the row's run (another folder of this
        # setting: another baseline, or the same one decoded by another run), with its score.
        own = (pair["best"], number(tables.score(section, pair["best"], budget), self.kind))
        self.against = " ".join(own) if own != row_baseline else ""
        # "-": the folder holds no uniform twin of this setting (`ripplekv table` writes a dash)
        self.twin = "" if pair["twin"] in ("", "-") else pair["twin"]
        self.twin_verdict = pair["twin_verdict"]

    def count(self, counts):
        counts[self.verdict] = counts.get(self.verdict, 0) + 1
        if self.twin:
            counts["twin " + self.twin_verdict] = counts.get("twin " + self.twin_verdict, 0) + 1

    def interval(self):
        k = self.kind
        text = f"{number(self.diff, k, True)} [{number(self.lo, k, True)}, {number(self.hi, k, True)}]"
        return text + (f" vs {self.against}" if self.against else "")

    def render(self, bold, escape=lambda text: text):
        """The cell's text, a win or loss set in bold by bold(text), every name passed through escape."""
        text = escape(f"{number(self.value, self.kind)} ({self.interval()}) {self.verdict}")
        if self.verdict in ("win", "loss"):
            text = bold(text)
        return f"{text}; {escape(self.twin)}: {self.twin_verdict}" if self.twin else text

    def markdown(self):
        return self.render(lambda text: f"**{text}**")

    def latex(self):
        return self.render(lambda text: f"\\textbf{{{text}}}", latex_escape)


LATEX_SPECIAL = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "_": "\\_", "#": "\\#", "$": "\\$",
                 "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}


def latex_escape(text):
    return "".join(LATEX_SPECIAL.get(c, c) for c in text)


def rows_of(spec, spec_file):
    """(benchmark or "", budget, FullKV cell, best baseline cell, default Cell, strong Cell) per row."""
    rows = []
    for section in spec.sections():
        if section == "columns":
            continue
        s = spec[section]
        for key in ("tables", "default", "strong"):
            if key not in s:
                fail(f"[{section}] in {spec_file} has no '{key}'")
        kind = s.get("kind", "ruler")
        if kind not in ("ruler", "fidelity"):
            fail(f"[{section}] in {spec_file}: kind = {kind!r}; use ruler (scores) or fidelity (KL)")
        def tables(key):
            return Tables(s[key], kind, f"[{section}] {key}")
        main_tables = tables("tables")
        default_tables = tables("default_tables") if "default_tables" in s else main_tables
        strong_tables = tables("strong_tables") if "strong_tables" in s else main_tables
        settings = [(key, t) for key, t in (("default", default_tables), ("strong", strong_tables))
                    if s[key] != NOT_RUN]
        if not settings:
            fail(f"[{section}] in {spec_file}: default and strong are both {NOT_RUN!r}; name at least one setting")
        if "budgets" in s:
            budgets = [b.strip() for b in s["budgets"].split(",") if b.strip()]
        else:
            ran = set.intersection(*(set(t.budgets(s[key])) for key, t in settings))
            budgets = sorted(ran, key=int)
        if not budgets:
            names = " and ".join(repr(s[key]) for key, _ in settings)
            fail(f"[{section}]: no budget that {'both ' if len(settings) == 2 else ''}{names} ran")
        if kind == "ruler":
            full_tables = tables("full_tables") if "full_tables" in s else main_tables
            full = number(full_tables.score(section, "FullKV", "full"), kind)
        else:
            full = "0 (by definition)"
        for i, budget in enumerate(budgets):
            baseline = main_tables.best_baseline(section, budget)
            row_baseline = (baseline, number(main_tables.score(section, baseline, budget), kind))
            def cell(key, t):
                return NotRun() if s[key] == NOT_RUN else Cell(section, t, s[key], budget, row_baseline)
            rows.append(("" if i else section, budget, "" if i else full, " ".join(row_baseline),
                         cell("default", default_tables), cell("strong", strong_tables)))
    return rows


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("s") else "s")


def summary(titles, rows):
    lines = []
    for column, title in enumerate(titles):
        count = {}
        for row in rows:
            row[4 + column].count(count)
        def tally(prefix):
            return ", ".join(plural(count.get(prefix + word, 0), word) for word in ("win", "tie", "loss"))
        lines.append(f"{title} against the best baseline: {tally('')}; against its uniform twin: {tally('twin ')}")
    return lines


def markdown(titles, rows):
    lines = [f"| benchmark | budget | FullKV | best baseline | {titles[0]} | {titles[1]} |",
             "|---|---|---|---|---|---|"]
    for name, budget, full, baseline, a, b in rows:
        lines.append(f"| {name} | {budget} | {full} | {baseline} | {a.markdown()} | {b.markdown()} |")
    return "\n".join(lines + [""] + [f"- {line}" for line in summary(titles, rows)]) + "\n"


def latex(titles, rows, spec_file):
    spec_file = os.path.abspath(spec_file)
    if spec_file.startswith(ROOT + os.sep):  # the same first line from any working directory
        spec_file = os.path.relpath(spec_file, ROOT)
    lines = [f"% scripts/results/headline.py {spec_file}: needs \\usepackage{{booktabs}} (and graphicx for \\resizebox)",
             "\\begin{table*}[t]", "\\centering",
             "\\caption{RippleKV against the best baseline at the same budget: score (paired difference "
             "[95\\% bootstrap interval]) verdict; and the verdict against its uniform twin}",
             "\\resizebox{\\textwidth}{!}{%", "\\begin{tabular}{llllll}", "\\toprule",
             f"Benchmark & Budget & FullKV & Best baseline & {latex_escape(titles[0])} & {latex_escape(titles[1])} \\\\",
             "\\midrule"]
    for i, (name, budget, full, baseline, a, b) in enumerate(rows):
        if name and i:
            lines.append("\\midrule")
        lines.append(" & ".join(latex_escape(x) for x in (name, budget, full, baseline)) +
                     f" & {a.latex()} & {b.latex()} \\\\")
    lines += ["\\bottomrule", "\\end{tabular}}", "\\end{table*}"]
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- headline.py: begin -->", "<!-- headline.py: end -->"


def put_in_readme(path, table):
    """Replaces what stands between the lines BEGIN and END of the file at path with table."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines.count(BEGIN) != 1 or lines.count(END) != 1 or lines.index(BEGIN) > lines.index(END):
        fail(f"{path}: expected one line {BEGIN!r} and, after it, one line {END!r} around the table")
    i, j = lines.index(BEGIN), lines.index(END)
    with open(path, "w") as f:
        f.write("\n".join(lines[:i + 1] + table.rstrip("\n").split("\n") + lines[j:]))


def main():
    parser = argparse.ArgumentParser(description="The results at a glance, from `ripplekv table` outputs.")
    parser.add_argument("spec", help="the spec INI file (e.g. configs/results/headline.ini)")
    parser.add_argument("--latex", metavar="FILE", help="also write the table as LaTeX (booktabs) to FILE")
    parser.add_argument("--readme", metavar="FILE", help=f"also put the table in FILE between the lines {BEGIN!r} and {END!r}")
    args = parser.parse_args()
    if not os.path.isfile(args.spec):
        fail(f"{args.spec} is missing")
    spec = configparser.ConfigParser(interpolation=None)
    spec.optionxform = str
    try:
        spec.read(args.spec)
    except configparser.Error as e:
        fail(f"{args.spec}: {e}")
    if "columns" not in spec:
        fail(f"{args.spec} has no [columns] section (default_title, strong_title)")
    heads = spec["columns"]
    titles = (heads.get("default_title", "RippleKV (default)"), heads.get("strong_title", "RippleKV"))
    rows = rows_of(spec, args.spec)
    table = markdown(titles, rows)
    sys.stdout.write(table)
    if args.latex:
        with open(args.latex, "w") as f:
            f.write(latex(titles, rows, args.spec))
    if args.readme:
        put_in_readme(args.readme, table)


if __name__ == "__main__":
    main()
