"""Issue 25's JSON bars, each run beside its base, taking turns (best of at
least 5), output to /dev/null: `--throttle 1s --key-field host --time-field
ts` on the JSON copy of the benchmark file (the time and the key found in
one walk of the line) against `jq -r .host` on the same file (at most 1/25
of its time) and against `--throttle 1s --key-field 2` on the whitespace
file (at most 1.43 times its time). With `--compare-pace`, the same JSON
run of that build (say, the one before the change) takes turns with them.
`measure` prints one table and returns the targets as (name, met)."""

import os

from bench import report
from bench.timing import fastest, take_turns

WHITESPACE = "--throttle 1s --key-field 2"
JSON = "JSON --throttle 1s --key-field host --time-field ts"
JQ = "jq -r .host, JSON"
JSON_TAIL = ["--throttle", "1s", "--key-field", "host", "--time-field", "ts"]


def measure(session, pace, jq, compare_pace=None):
    runs = max(session.runs, 5)
    err = session.path("onewalk.err")
    unix = take_turns([(WHITESPACE, [pace, "--replay", "--throttle", "1s", "--key-field", "2"])], runs,
                      session.logs["unix"], os.devnull, err)
    commands = [(JSON, [pace, "--replay", *JSON_TAIL])]
    if compare_pace:
        commands.append((f"{JSON} (compared build)", [compare_pace, "--replay", *JSON_TAIL]))
    if jq:
        commands.append((JQ, [jq, "-r", ".host"]))
    taken = take_turns(commands, runs, session.logs["json"], os.devnull, err)
    taken.update(unix)
    results = {label: fastest(r) for label, r in taken.items()}
    for label, r in results.items():
        if r.status != 0:
            session.fail(label, r)
    print()
    print(f"{session.lines} lines, best of {runs}, runs taking turns, output to /dev/null")
    print()
    base = results[WHITESPACE].seconds
    lines = []
    for label, r in results.items():
        versus_jq = f"{results[JQ].seconds / r.seconds:.1f}" if JQ in results else ""
        lines.append(f"| `{label}` | {r.seconds:.3f} s | {r.seconds / base:.2f} | {versus_jq} |")
    report.table(["command", "time", f"x `{WHITESPACE}`", "jq's time / its time"], lines)
    targets = [(f"{JSON} <= 1.43x {WHITESPACE}", results[JSON].seconds <= 1.43 * base)]
    if JQ in results:
        targets.append((f"{JSON} <= 1/25 of {JQ}", results[JSON].seconds * 25 <= results[JQ].seconds))
    return targets
