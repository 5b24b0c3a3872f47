"""bench-replay's report: throughput, memory, live against replay, the
accounting runs, and the targets, all as ratios measured in this run
(machines are noisy; the ratios are what to compare across runs)."""

import os

from bench import data, report
from bench.replay.memory import PENDING_KEYS
from bench.replay.speed import AWK_FOR, POLICIES, VARIANTS


def speed_order(compared):
    """The throughput table's rows, in order."""
    order = ["wc -l", "cat >/dev/null", "awk debounce", "awk debounce, keyed", "awk throttle",
             "awk throttle, keyed"]
    for policy in POLICIES:
        order += [f"pace --{policy}", f"pace --{policy}, keyed"]
    for variant, _ in VARIANTS:
        order += [f"pace --debounce, {variant}", f"pace --debounce, keyed, {variant}"]
    order += ["pace --throttle (live)", "pace --throttle, keyed (live)"]
    order += ["pace --throttle 1s, keyed", "pace --throttle 1s, keyed, JSON", "jq -r .host, JSON"]
    if compared:
        order += ["compared pace --throttle, keyed", "compared pace --debounce, keyed"]
    return order


def speed_row(session, label):
    results, lines = session.results, session.lines
    entry = results.get(label)
    if entry is None:
        return f"| {label} | n/a (format not supported by this build) | | | | | |"
    r, _, variant = entry
    size = session.sizes[variant]
    vs_awk = ""
    if label == "pace --throttle 1s, keyed, JSON" and "jq -r .host, JSON" in results:
        vs_awk = f"{session.seconds('jq -r .host, JSON') / r.seconds:.1f}x jq"
    if label in AWK_FOR:
        vs_awk = f"{session.seconds(AWK_FOR[label]) / r.seconds:.1f}x"
    return (f"| {label} | {r.seconds:.3f} s | {lines / r.seconds / 1e6:.1f} M | "
            f"{size / r.seconds / 1e6:.0f} | {r.rss_kb / 1024:.1f} MB | {r.seconds / session.seconds('wc -l'):.1f} | "
            f"{vs_awk} |")


def print_speed(session, compared):
    sizes = session.sizes
    print()
    print(f"{session.lines} lines, {sizes['unix'] / 1e6:.0f} MB (unix seconds; iso8601 "
          f"{sizes['iso8601'] / 1e6:.0f} MB, syslog {sizes['syslog'] / 1e6:.0f} MB, JSON "
          f"{sizes['json'] / 1e6:.0f} MB), window {data.WINDOW}, best of {session.runs}; {os.cpu_count()} CPUs")
    print()
    report.table(["command", "time", "lines/s", "MB/s", "peak RSS", "x `wc -l` time", "speed vs awk"],
                 [speed_row(session, label) for label in speed_order(compared)])


def print_memory(session, memory, big_lines):
    lines = session.lines
    rows = [f"| {label} | {r.seconds:.3f} s | {r.rss_kb / 1024:.1f} MB |"
            for label, r in [(f"keyed debounce, {lines // 10} distinct keys", memory.small_keys),
                             (f"keyed debounce, {lines} distinct keys", memory.many_keys),
                             (f"debounce, {big_lines} lines ({memory.big_size / 1e6:.0f} MB)", memory.big_run)]]
    rows.append(f"| keyed debounce 1h, {PENDING_KEYS} pending keys | {memory.million_keys.seconds:.3f} s | "
                f"{memory.million_keys.rss_kb / 1024:.1f} MB: {memory.per_key:.0f} bytes per key beyond its "
                f"{memory.pending_line:.0f}-byte line |")
    for keys, size, r, shown in memory.stats_runs:
        rows.append(f"| `--stats --key-field 2`, {keys} distinct keys ({size / 1e6:.0f} MB; `{shown}`) | "
                    f"{r.seconds:.3f} s | {r.rss_kb / 1024:.1f} MB |")
    rows.append(f"| `pace --help` (best of 20) | {memory.help_seconds * 1000:.1f} ms | |")
    print()
    report.table(["memory run", "time", "peak RSS"], rows)


# Each accounting run and the run without the flags it is set against.
ACCOUNTING_AGAINST = [
    ("pace --debounce --count", "pace --debounce (again)"),
    ("pace --throttle, keyed --count", "pace --throttle, keyed (again)"),
    ("pace --throttle, keyed --dropped /dev/null", "pace --throttle, keyed (again)"),
    ("pace --throttle 1ns, keyed (keeps nearly all)", "pace --throttle, keyed (again)"),
    ("pace --throttle, keyed --count --dropped /dev/null", "pace --throttle, keyed (again)"),
]


def print_live_and_accounting(session):
    print()
    report.table(["live / replay", "throughput ratio"], [
        f"| --throttle | {session.ratio('pace --throttle', 'pace --throttle (live)'):.2f} |",
        f"| --throttle, keyed | {session.ratio('pace --throttle, keyed', 'pace --throttle, keyed (live)'):.2f} |",
    ])
    print()
    rows = []
    for label, against in ACCOUNTING_AGAINST:
        r = session.results[label][0]
        rows.append(f"| {label} | {r.seconds:.3f} s | {r.seconds / session.seconds(against):.2f} | "
                    f"{r.rss_kb / 1024:.1f} MB |")
    report.table(["accounting run", "time", "x same run without", "peak RSS"], rows)


def targets(session, memory, compared):
    """The targets, as (name, met), from ratios measured in this run."""
    ratio, seconds = session.ratio, session.seconds
    checks = [
        ("debounce >= 10x mawk", ratio("awk debounce", "pace --debounce") >= 10),
        ("debounce <= 5x wc -l", ratio("pace --debounce", "wc -l") <= 5),
        ("keyed debounce >= 5x mawk keyed", ratio("awk debounce, keyed", "pace --debounce, keyed") >= 5),
        ("unkeyed peak RSS < 10 MB",
         max(memory.big_run.rss_kb, session.results["pace --debounce"][0].rss_kb) < 10 * 1024),
        ("distinct keys: flat RSS (within 10%)", memory.many_keys.rss_kb <= memory.small_keys.rss_kb * 1.1),
        ("pace --help < 10 ms", memory.help_seconds < 0.010),
        ("memory per pending key <= 200 bytes beyond its line", memory.per_key <= 200),
        ("live throughput >= half of replay's", ratio("pace --throttle", "pace --throttle (live)") >= 0.5),
        ("JSON keyed >= 50% of whitespace keyed",
         ratio("pace --throttle 1s, keyed", "pace --throttle 1s, keyed, JSON") >= 0.5),
        ("--count costs <= 10%", max(ratio("pace --debounce --count", "pace --debounce (again)"),
                                     ratio("pace --throttle, keyed --count",
                                           "pace --throttle, keyed (again)")) <= 1.10),
        ("--dropped costs no more than stdout would",
         seconds("pace --throttle, keyed --dropped /dev/null")
         <= seconds("pace --throttle 1ns, keyed (keeps nearly all)") * 1.05),
        ("--stats: flat RSS (within 10%)", memory.stats_runs[1][2].rss_kb <= memory.stats_runs[0][2].rss_kb * 1.1),
    ]
    if "jq -r .host, JSON" in session.results:
        checks.append(("JSON keyed >= 15x jq -r .host",
                       ratio("jq -r .host, JSON", "pace --throttle 1s, keyed, JSON") >= 15))
    if compared:
        checks.append(("--key-field 2 no slower than the compared build (5%)",
                       ratio("pace --throttle, keyed", "compared pace --throttle, keyed") <= 1.05 and
                       ratio("pace --debounce, keyed", "compared pace --debounce, keyed") <= 1.05))
    return checks
