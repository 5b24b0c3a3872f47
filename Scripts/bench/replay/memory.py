"""Peak RSS: keyed debounce on many distinct keys against a tenth of them,
a million keys each holding a line, a long unkeyed log, and --stats on
millions of distinct keys. Each log lives in the temporary folder only while
it is read."""

import os
import sys

from bench import data, timing
from bench.outputs import line_count

PENDING_KEYS = 1_000_000
HELP_RUNS = 20


class Memory:
    """The memory runs' results, filled in by the methods in turn."""

    def distinct_keys(self, session, pace):
        """2M distinct keys (each active once) against a tenth of them."""
        lines = session.lines
        print("generating the distinct-key and long logs", file=sys.stderr)
        distinct = session.path("distinct.log")
        distinct_small = session.path("distinct-small.log")
        data.generate_distinct_keys(distinct, lines)
        data.generate_distinct_keys(distinct_small, lines // 10)
        command = [pace, "--replay", "--debounce", data.WINDOW, "--key-field", "2"]
        self.small_keys, _ = session.measure(f"pace --debounce, keyed, {lines // 10} distinct keys", command,
                                             stdin=distinct_small)
        self.many_keys, many_out = session.measure(f"pace --debounce, keyed, {lines} distinct keys", command,
                                                   stdin=distinct, check=True)
        if self.many_keys.status == 0 and line_count(many_out) != lines:
            session.failures.append(f"distinct keys: {line_count(many_out)} lines out, expected {lines}")

    def pending_keys(self, session, pace):
        """Memory per active key: a million keys, each holding a debounced
        line at the end (the window outlasts the log), against one key."""
        pending = session.path("pending.log")
        data.generate_pending_keys(pending, PENDING_KEYS)
        self.pending_line = os.path.getsize(pending) / PENDING_KEYS - 1
        one_key, _ = session.measure("pace --debounce 1h, one key", [pace, "--replay", "--debounce", "1h"],
                                     stdin=pending)
        self.million_keys, _ = session.measure(f"pace --debounce 1h, keyed, {PENDING_KEYS} pending keys",
                                               [pace, "--replay", "--debounce", "1h", "--key-field", "2"],
                                               stdin=pending)
        self.per_key = (self.million_keys.rss_kb - one_key.rss_kb) * 1024 / PENDING_KEYS - self.pending_line
        os.remove(pending)

    def long_log(self, session, pace, big_lines):
        big = session.path("big.log")
        data.generate_unix(big, big_lines, data.SEED + 1)
        self.big_run, _ = session.measure(f"pace --debounce, {big_lines} lines",
                                          [pace, "--replay", "--debounce", data.WINDOW], stdin=big)
        self.big_size = os.path.getsize(big)
        os.remove(big)

    def stats_keys(self, session, pace, stats_keys):
        """--stats --key-field in bounded memory: past 1,000,000 keys the
        count is an estimate and past 100,000 the table a summary, so
        peak RSS is the same for a tenth of the keys and for all of them."""
        command = [pace, "--replay", "--time-format", "unix", "--throttle", data.WINDOW, "--key-field", "2", "--stats"]
        self.stats_runs = []
        for keys in (stats_keys // 10, stats_keys):
            print(f"generating {keys} distinct keys for --stats", file=sys.stderr)
            path = session.path("stats-keys.log")
            data.generate_stats_keys(path, keys)
            size = os.path.getsize(path)
            r, _ = session.measure(f"pace --stats, {keys} distinct keys", command, stdin=path)
            os.remove(path)
            shown = [line.strip() for line in r.stderr.splitlines() if "distinct keys:" in line]
            self.stats_runs.append((keys, size, r, shown[0] if shown else "?"))

    def start_up(self, pace):
        """`pace --help`, best of HELP_RUNS: the start-up alone."""
        self.help_seconds = timing.start_up([pace, "--help"], HELP_RUNS)
