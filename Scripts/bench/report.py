"""What the scripts print: markdown tables (bench-replay, callgrind-replay),
an aligned text table (bench-live), the targets line, and the failures that
decide the exit status."""

import sys


def table(header, rows):
    """A markdown table: the first column left-aligned, the others right.
    `rows` are lines already formatted, since some cells stay empty."""
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    for row in rows:
        print(row)


def aligned(header, rows, left_columns):
    """A plain text table, padded to the widest cell: the first
    `left_columns` columns left-aligned, the others right, a rule under the
    header."""
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    for i, row in enumerate([header] + rows):
        print("  ".join(str(v).ljust(w) if j < left_columns else str(v).rjust(w)
                        for j, (v, w) in enumerate(zip(row, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def report_targets(checks):
    """One line: each (name, ok) as met, MISSED, or n/a when ok is None.
    Targets are reported, not enforced: they do not change the exit status."""
    print()
    print("targets: " + "; ".join(f"{name}: {'met' if ok else ('n/a' if ok is None else 'MISSED')}"
                                  for name, ok in checks))


def exit_on(failures):
    """Exits 1 after listing the failures on stderr, if there are any."""
    if failures:
        print(file=sys.stderr)
        for failure in failures:
            print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
