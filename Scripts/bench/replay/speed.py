"""Throughput: pace for every policy, keyed and unkeyed, on every timestamp
format, next to what a shell user already has (wc -l, cat, mawk, jq); the
accounting flags against the same runs without them; and the checks that
pace printed what awk printed."""

import os
import sys

from bench import data
from bench.outputs import item_numbers, line_count, same_output
from bench.replay import awk
from bench.timing import fastest, take_turns

POLICIES = ["debounce", "leading", "throttle", "throttle-last"]
# Each variant's log and the field its key is in.
VARIANTS = [("iso8601", "2"), ("syslog", "4")]
# pace's runs whose output is compared with awk's.
AWK_FOR = {
    "pace --debounce": "awk debounce", "pace --debounce, keyed": "awk debounce, keyed",
    "pace --throttle": "awk throttle", "pace --throttle, keyed": "awk throttle, keyed",
}


def measure_baselines(session):
    programs = awk.write_programs(session.work)
    session.measure("wc -l", ["wc", "-l"])
    session.measure("cat >/dev/null", ["cat"])
    plain = ["mawk", "-v", f"D={data.WINDOW_US}"]
    keyed = plain + ["-v", "kf=2"]
    session.measure("awk debounce", plain + ["-f", programs["debounce"]], check=True)
    session.measure("awk debounce, keyed", keyed + ["-f", programs["debounce-keyed"]], check=True)
    session.measure("awk throttle", plain + ["-f", programs["throttle"]], check=True)
    session.measure("awk throttle, keyed", keyed + ["-f", programs["throttle-keyed"]], check=True)


def measure_policies(session, pace):
    """Every policy, then debounce on the other timestamp formats (n/a when
    this build does not read them)."""
    base = [pace, "--replay"]
    for policy in POLICIES:
        checked = policy in ("debounce", "throttle")
        session.measure(f"pace --{policy}", [*base, f"--{policy}", data.WINDOW], check=checked)
        session.measure(f"pace --{policy}, keyed", [*base, f"--{policy}", data.WINDOW, "--key-field", "2"],
                        check=checked)
    for variant, key_field in VARIANTS:
        if not session.supported(pace, variant):
            session.results[f"pace --debounce, {variant}"] = None
            session.results[f"pace --debounce, keyed, {variant}"] = None
            continue
        year = ["--year", "2026"] if variant == "syslog" else []
        session.measure(f"pace --debounce, {variant}", [*base, *year, "--debounce", data.WINDOW], variant, check=True)
        session.measure(f"pace --debounce, keyed, {variant}",
                        [*base, *year, "--debounce", data.WINDOW, "--key-field", key_field], variant, check=True)


def measure_json(session, pace, jq, compare_pace):
    """Structured lines: JSON keyed and timed by NAMEs, against jq doing
    the extraction alone and against pace on the whitespace version; then
    the keyed runs of another build, if one is given."""
    base = [pace, "--replay"]
    json_key = ["--key-field", "host", "--time-field", "ts"]
    session.measure("pace --throttle 1s, keyed", [*base, "--throttle", "1s", "--key-field", "2"], check=True)
    session.measure("pace --throttle 1s, keyed, JSON", [*base, "--throttle", "1s", *json_key], "json", check=True)
    if jq:
        session.measure("jq -r .host, JSON", [jq, "-r", ".host"], "json")
    else:
        print("jq is not installed and could not be: the jq row is skipped", file=sys.stderr)
    if compare_pace:
        for policy in ("throttle", "debounce"):
            session.measure(f"compared pace --{policy}, keyed", [compare_pace, "--replay", f"--{policy}", data.WINDOW,
                                                                "--key-field", "2"])


def accounting_runs(pace):
    """(label, command) of the accounting runs, each row's base among them."""
    base = [pace, "--replay"]
    throttle_keyed = [*base, "--throttle", data.WINDOW, "--key-field", "2"]
    return [
        ("pace --debounce (again)", [*base, "--debounce", data.WINDOW]),
        ("pace --debounce --count", [*base, "--debounce", data.WINDOW, "--count"]),
        ("pace --throttle, keyed (again)", throttle_keyed),
        ("pace --throttle, keyed --count", throttle_keyed + ["--count"]),
        ("pace --throttle, keyed --dropped /dev/null", throttle_keyed + ["--dropped", os.devnull]),
        ("pace --throttle 1ns, keyed (keeps nearly all)", [*base, "--throttle", "1ns", "--key-field", "2"]),
        ("pace --throttle, keyed --count --dropped /dev/null",
         throttle_keyed + ["--count", "--dropped", os.devnull]),
    ]


def measure_accounting(session, pace):
    """Accounting (issue 13): --count against the same run without it;
    --dropped (to /dev/null, as stdout is) against a run that writes
    nearly every line to stdout (--throttle 1ns: only lines of one key
    at one instant are dropped), so both write about the same bytes.
    The runs take turns (best of at least 5 each), so that a load that
    drifts during the benchmark weighs on each alike; the runs without
    the flags are timed again among them."""
    print("  accounting runs, taking turns", file=sys.stderr)
    taken = take_turns(accounting_runs(pace), max(session.runs, 5), session.logs["unix"], os.devnull,
                       session.path("err-accounting"))
    for label, runs in taken.items():
        result = fastest(runs)
        if result.status != 0:
            session.fail(label, result)
        session.results[label] = (result, None, "unix")


def measure_live(session, pace):
    """Live mode on the same log (input from a file is always ready, so
    this times the live loop itself), to set next to replay."""
    session.measure("pace --throttle (live)", [pace, "--throttle", data.WINDOW], check=False)
    session.measure("pace --throttle, keyed (live)", [pace, "--throttle", data.WINDOW, "--key-field", "2"])


def check_outputs(session):
    """pace against awk, and the other formats against unix."""
    results, failures = session.results, session.failures
    for p, a in AWK_FOR.items():
        if not same_output(results[p][1], results[a][1]):
            failures.append(f"'{p}' and '{a}' printed different lines "
                            f"({line_count(results[p][1])} vs {line_count(results[a][1])})")
    for variant, _ in VARIANTS:
        for keyed in ("", "keyed, "):
            entry = results[f"pace --debounce, {keyed}{variant}"]
            if entry is None:
                continue
            reference = results[f"pace --debounce{', keyed' if keyed else ''}"][1]
            if item_numbers(entry[1]) != item_numbers(reference):
                failures.append(f"'pace --debounce, {keyed}{variant}' emitted other events than unix")
    if item_numbers(results["pace --throttle 1s, keyed, JSON"][1]) != \
            item_numbers(results["pace --throttle 1s, keyed"][1]):
        failures.append("'pace --throttle 1s, keyed, JSON' emitted other events than the whitespace version")
