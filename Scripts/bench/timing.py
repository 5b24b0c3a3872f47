"""Running a command and timing it: the wall time and peak RSS of one run,
the best of several runs, and several commands taking turns, so that a load
that drifts during a benchmark weighs on each alike."""

import subprocess
import time

# GNU time: it reports the peak RSS of the command it forks.
TIME = "/usr/bin/time"


class Result:
    def __init__(self, seconds, rss_kb, status, stderr):
        self.seconds = seconds
        self.rss_kb = rss_kb
        self.status = status
        self.stderr = stderr


def run_once(command, stdin_path, stdout_path, stderr_path):
    """Runs `command` once: its wall time and peak RSS. The RSS comes from
    /usr/bin/time, whose small process forks the command: a child forked
    straight from Python would count Python's own pages in its peak."""
    rss_path = stderr_path + ".rss"
    with open(stdin_path, "rb") as fin, open(stdout_path, "wb") as fout, open(stderr_path, "wb") as ferr:
        start = time.perf_counter()
        status = subprocess.run([TIME, "-f", "%M", "-o", rss_path, "--", *command],
                                stdin=fin, stdout=fout, stderr=ferr).returncode
        seconds = time.perf_counter() - start
    with open(stderr_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    with open(rss_path) as f:
        # GNU time writes "Command exited with non-zero status N" first on failure.
        rss_kb = int(f.read().split()[-1])
    return Result(seconds, rss_kb, status, stderr)


def fastest(results):
    """The first failed run if any; else the best (least) wall time, with the
    largest peak RSS seen."""
    for r in results:
        if r.status != 0:
            return r
    best = min(results, key=lambda r: r.seconds)
    return Result(best.seconds, max(r.rss_kb for r in results), 0, best.stderr)


def best_of(runs, command, stdin_path, stdout_path, stderr_path):
    """`fastest` of `runs` runs of `command`, one after the other."""
    return fastest([run_once(command, stdin_path, stdout_path, stderr_path) for _ in range(runs)])


def take_turns(commands, rounds, stdin_path, stdout_path, stderr_path):
    """{label: [Result]}: each (label, command) of `commands` runs once per
    round, in order, for `rounds` rounds."""
    taken = {label: [] for label, _ in commands}
    for _ in range(rounds):
        for label, command in commands:
            taken[label].append(run_once(command, stdin_path, stdout_path, stderr_path))
    return taken


def start_up(command, runs):
    """The best wall time of `runs` runs of a short command, timed without
    the /usr/bin/time wrapper (its own fork and exec would be most of it)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return min(times)
