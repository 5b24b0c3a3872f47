"""One bench-replay run: its temporary folder, the generated logs, how many
times each command runs, every result by label, and the failures so far
(any failure makes the exit status 1)."""

import os
import sys

from bench import data
from bench.timing import best_of, run_once


class Session:
    def __init__(self, work, lines, runs):
        self.work = work
        self.lines = lines
        self.runs = runs
        self.logs = data.generate(work, lines)
        self.sizes = {name: os.path.getsize(path) for name, path in self.logs.items()}
        self.results = {}       # label -> (Result, output path, log variant), or None: not supported
        self.failures = []
        self._outputs = 0

    def path(self, name):
        return os.path.join(self.work, name)

    def fail(self, label, result):
        self.failures.append(f"{label}: exit {result.status}: {result.stderr.strip()}")

    def measure(self, label, command, variant="unix", stdin=None, check=False):
        """Times `command` with its output thrown away (writing it to a
        file would time the page cache too); with `check`, runs it once
        more into a file for the output checks. Kept under `label`."""
        self._outputs += 1
        out = self.path(f"out{self._outputs}")
        err = self.path(f"err{self._outputs}")
        print(f"  {label}", file=sys.stderr)
        result = best_of(self.runs, command, stdin or self.logs[variant], os.devnull, err)
        if result.status == 0 and check:
            result_check = run_once(command, stdin or self.logs[variant], out, err)
            if result_check.status != 0:
                result = result_check
        if result.status != 0:
            self.fail(label, result)
        self.results[label] = (result, out, variant)
        return result, out

    def timed(self, label, command, stdin, out=os.devnull):
        """Times `command` (its output to `out`), without keeping it."""
        print(f"  {label}", file=sys.stderr)
        r = best_of(self.runs, command, stdin, out, self.path("limits.err"))
        if r.status != 0:
            self.fail(label, r)
        return r

    def supported(self, pace, variant):
        """Whether this build of pace reads the variant's timestamps."""
        sample = self.path(f"{variant}.sample")
        with open(self.logs[variant], "rb") as f, open(sample, "wb") as g:
            g.writelines(f.readline() for _ in range(10))
        r = run_once([pace, "--replay", "--debounce", data.WINDOW], sample, os.devnull, sample + ".err")
        return r.status == 0

    def seconds(self, label):
        return self.results[label][0].seconds

    def ratio(self, a, b):
        """How many times as long `a` took as `b`."""
        return self.seconds(a) / self.seconds(b)
