"""One filter over one scenario: pace or the asyncio reference is fed the
schedule through a pipe, every line it prints is stamped with the time it was
read, and the result is set against the model's ideal times. Then the filter
sits with no input and no timer pending, and its CPU time and context
switches over that idle period are what it cost."""

import os
import select
import subprocess
import time

from bench.live.model import MS

START_DELAY = 0.3         # let the filter start before the first line
SETTLE = 0.3              # after the last line: every timer has fired
GIVE_UP = 10              # seconds to wait for the filter to finish


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])      # utime + stime (fields 14, 15)


def context_switches(pid):
    total = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def cpu_pressure_us():
    """Total µs some task waited for a CPU (Linux PSI), or None."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().rsplit("total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return None


class Reader:
    """The filter's output, read as it comes: (monotonic ns, line)."""

    def __init__(self, fd):
        self.fd = fd
        self.received = []
        self.pending = b""

    def collect(self, timeout):
        """Reads what is there within `timeout` seconds; True at its end."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        now = time.monotonic_ns()
        chunk = os.read(self.fd, 65536)
        if not chunk:
            return True
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        self.received.extend((now, line.decode()) for line in lines)
        return False

    def pump_until(self, deadline_ns):
        while True:
            left = deadline_ns - time.monotonic_ns()
            if left <= 0:
                return
            self.collect(left / 1e9)


def send(scenario, inp, reader):
    """Writes the schedule on time, reading meanwhile: the lines as sent
    (monotonic ns, key, line), and the CPU psi over the run in percent."""
    time.sleep(START_DELAY)
    pressure = cpu_pressure_us()
    origin = time.monotonic_ns()
    sent = []
    for offset, key, line in scenario.schedule:
        reader.pump_until(origin + offset)
        os.write(inp, (line + "\n").encode())
        sent.append((time.monotonic_ns(), key, line))
    reader.pump_until(time.monotonic_ns() + int(SETTLE * 1e9))
    if pressure is not None:
        pressure = (cpu_pressure_us() - pressure) * 1000 / (time.monotonic_ns() - origin) * 100
    return sent, pressure


def run(command, scenario, idle_seconds):
    """Runs the filter over the schedule; returns measurements."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    reader = Reader(process.stdout.fileno())
    sent, pressure = send(scenario, process.stdin.fileno(), reader)

    # Idle: no input, no timer pending.
    ticks = cpu_ticks(process.pid)
    switches = context_switches(process.pid)
    reader.pump_until(time.monotonic_ns() + int(idle_seconds * 1e9))
    idle_ticks = cpu_ticks(process.pid) - ticks
    idle_switches = context_switches(process.pid) - switches

    process.stdin.close()
    give_up = time.monotonic() + GIVE_UP
    while not reader.collect(1.0) and time.monotonic() < give_up:
        pass
    process.wait(timeout=GIVE_UP)
    return score(scenario, sent, reader.received) | {
        "idle_ms": idle_ticks * 1000 / os.sysconf("SC_CLK_TCK"), "idle_switches": idle_switches,
        "status": process.returncode, "pressure": pressure,
    }


def score(scenario, sent, received):
    """Lines in, expected and out; lost and extra; each line's lateness."""
    model = scenario.model()
    for t, key, line in sent:
        model.event(t, key, line)
    ideal = dict((line, t) for t, line in model.finish())
    got = {}
    extra = 0
    lateness = []
    for t, line in received:
        if line in got or line not in ideal:
            extra += 1
            continue
        got[line] = t
        lateness.append(t - ideal[line])
    lost = sum(1 for line in ideal if line not in got)
    lateness.sort()
    return {"in": len(sent), "expected": len(ideal), "out": len(received),
            "lost": lost, "extra": extra, "lateness": lateness}


def percentile(values, p):
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def late_ms(late):
    """p50, p99 and max lateness in ms, as table cells."""
    return (f"{percentile(late, 50) / MS:.3f}", f"{percentile(late, 99) / MS:.3f}",
            f"{(late[-1] if late else float('nan')) / MS:.3f}")
