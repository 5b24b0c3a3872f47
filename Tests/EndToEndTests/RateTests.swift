// `--rate N/D` through the binary: a keyed replay with `--burst` worked out by
// hand from SPEC's bucket, `--stats`' peak backlog (replay and live), live
// mode keeping its pace after end of input, and a signal during that live
// backlog writing it out at once. Times in live output are only compared as
// differences, computed from the output itself.

import Foundation
import Glibc
import Testing

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// An `--emit-time` line split into its stamp, in whole microseconds, and
/// the line (nil when it is not one).
private func stamped(_ line: Substring) -> (micros: Int64, line: String)? {
    guard let tab = line.firstIndex(of: "\t") else { return nil }
    let parts = line[..<tab].split(separator: ".")
    guard parts.count == 2, parts[1].count == 6, let seconds = Int64(parts[0]), let fraction = Int64(parts[1]) else {
        return nil
    }
    return (seconds * 1_000_000 + fraction, String(line[line.index(after: tab)...]))
}

private func stampedLines(_ output: String) -> [(micros: Int64, line: String)]? {
    let parsed = output.split(separator: "\n").map(stamped)
    return parsed.contains { $0 == nil } ? nil : parsed.map { $0! }
}

@Suite("pace --rate, end to end", .serialized)
struct RateEndToEndTests {
    @Test("keyed replay with --burst: each key paced on its own bucket; --stats shows the peak backlog")
    func keyedReplay() throws {
        // 10 per s (I = 100 ms), bucket of 2, per key (field 2).
        let input = """
            0ms x a
            0ms x b
            0ms x c
            50ms y d
            50ms y e
            60ms y f
            120ms x g

            """
        let result = try Pace.run(["--rate", "10/s", "--burst", "2", "--key-field", "2", "--replay",
                                   "--time-format", "offset", "--emit-time", "--stats"], stdin: input)
        // x: a, b take the two tokens (A = 200 ms); c waits for
        // A - I = 100 ms (A = 300 ms). y: d, e at 50 ms take its two
        // (A = 250 ms); f at 60 ms waits for 150 ms (A = 350 ms): c and f
        // wait at once. c goes at 100 ms; g at 120 ms finds A = 300 ms and
        // waits for 200 ms: f and g wait at once. The peak backlog is 2.
        #expect(result.stdoutText == """
            0.000000\t0ms x a
            0.000000\t0ms x b
            0.050000\t50ms y d
            0.050000\t50ms y e
            0.100000\t0ms x c
            0.150000\t60ms y f
            0.200000\t120ms x g

            """)
        #expect(result.stderr == """
            pace: stats:
              events in:           7
              emitted:             7
              dropped:             0
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
              peak backlog:        2
            pace: stats by key (top 2 of 2 by events in):
              key  in  emitted  dropped
              x     4        4        0
              y     3        3        0

            """)
        #expect(result.status == 0)
    }

    @Test("other policies' --stats has no backlog row")
    func noBacklogRowForLimit() throws {
        let result = try Pace.run(["--limit", "1/s", "--replay", "--time-format", "offset", "--stats"],
                                  stdin: "0ms a\n0ms b\n")
        #expect(result.stdoutText == "0ms a\n")
        #expect(result.stderr.hasSuffix("  empty lines:         0\n"))
        #expect(!result.stderr.contains("backlog"))
    }

    @Test("live: input ends with lines waiting; they go out at their due times, then pace exits", arguments: [
        // --rate 20/s: one line every 50 ms.
        (["--rate", "20/s"], [0, 50_000, 50_000]),
        // A bucket of 2: two at once, then one every 50 ms.
        (["--rate", "20/s", "--burst", "2"], [0, 0, 50_000, 50_000]),
    ] as [([String], [Int64])])
    func liveKeepsItsPace(arguments: [String], gaps: [Int64]) throws {
        let lines = ["a", "b", "c", "d"].prefix(gaps.count)
        // stdin is a file: pace reads every line at once, at one instant,
        // and input ends right after.
        let start = monotonicSeconds()
        let result = try Pace.run(arguments + ["--emit-time"], stdin: lines.map { $0 + "\n" }.joined())
        let elapsed = monotonicSeconds() - start
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let out = try #require(stampedLines(result.stdoutText), "not --emit-time lines: \(result.stdoutText)")
        #expect(out.map(\.line) == Array(lines))
        // Each stamp is its line's due time: exactly I = 50 ms after the
        // previous one (SPEC's e, floored to microseconds like the arrival).
        let differences = zip(out.dropFirst(), out).map { $0.micros - $1.micros }
        #expect(differences == Array(gaps.dropFirst()))
        // And pace did wait for them: it ran for the backlog's length at least.
        let backlog = Double(gaps.reduce(0, +)) / 1e6
        #expect(elapsed >= backlog, "pace exited after \(elapsed) s, before the last due time (\(backlog) s)")
    }

    @Test("live: --stats counts the backlog of lines read together")
    func liveStats() throws {
        let result = try Pace.run(["--rate", "100/s", "--stats"], stdin: "a\nb\nc\n")
        // a goes out at once; b and c wait (10 ms, 20 ms).
        #expect(result.stdoutText == "a\nb\nc\n")
        #expect(result.stderr.hasSuffix("  empty lines:         0\n  peak backlog:        2\n"))
        #expect(result.stderr.hasPrefix("pace: stats:\n  events in:           3\n  emitted:             3\n"))
        #expect(result.status == 0)
    }

    @Test("live: the backlog's due time and the bucket's refill pass before end of input is read; pace still ends",
          .timeLimit(.minutes(1)))
    func backlogDueBeforeEndOfInputIsRead() throws {
        // One line a second: a at once, b due 1 s later, the bucket full
        // again at 2 s. pace is stopped while it waits for b, input is
        // closed, and it is let go only after 3 s: its wait then reports the
        // end of input with b's due time and the refill both past.
        let pace = try PipedPace(["--rate", "1/s"])
        pace.write("a\nb\n")
        // Both lines were read together: a coming out says b is held.
        #expect(pace.readLine() == "a")
        kill(pace.pid, SIGSTOP)
        #expect(waitUntilStopped(pace.pid), "pace did not stop")
        pace.closeInput()
        // Not synchronisation: the pause is what makes b's due time and the
        // refill pass before pace reads the end of input.
        usleep(3_000_000)
        let resumed = monotonicSeconds()
        kill(pace.pid, SIGCONT)
        let end = pace.finish(timeout: 5, closingInput: false)
        let took = monotonicSeconds() - resumed
        #expect(end.status == 0, "pace did not exit (it sleeps with nothing left to wake it)")
        #expect(String(decoding: end.output, as: UTF8.self) == "b\n")
        #expect(end.errors == "")
        #expect(took < 2, "pace took \(took) s to end after SIGCONT")
    }

    @Test("SIGUSR1 while the live backlog waits: the waiting lines are pending, not dropped, with the final rows")
    func statsSoFarDuringBacklog() throws {
        // One line every 10 s: a goes out, b and c wait.
        let pace = try PipedPace(["--rate", "1/10s", "--count", "--stats"])
        pace.write("a\nb\nc\n")
        // The three were read together: a coming out says b and c are held.
        #expect(pace.readLine() == "1\ta")
        #expect(pace.send(SIGUSR1))
        var soFar: [String] = []
        while let line = pace.readLine(stderr: true) {
            soFar.append(line)
            if line.hasPrefix("  uncounted discards:") { break }
        }
        #expect(soFar == ["pace: stats:",
                          "  events in:           3",
                          "  emitted:             1",
                          "  dropped:             0",
                          "  pending:             2",
                          "  distinct keys:       1",
                          "  peak active keys:    1",
                          "  clamped timestamps:  0",
                          "  bad-time lines:      0",
                          "  passed through:      0",
                          "  empty lines:         0",
                          "  peak backlog:        2",
                          "  uncounted discards:  0"])
        // SIGTERM writes the backlog at once; the final summary has no
        // pending row.
        #expect(pace.send(SIGTERM))
        let end = pace.finish()
        #expect(end.status == 143)
        #expect(String(decoding: end.output, as: UTF8.self) == "1\tb\n1\tc\n")
        #expect(end.errors == """
            pace: stats:
              events in:           3
              emitted:             3
              dropped:             0
              distinct keys:       1
              peak active keys:    1
              clamped timestamps:  0
              bad-time lines:      0
              passed through:      0
              empty lines:         0
              peak backlog:        2
              uncounted discards:  0

            """)
    }

    @Test("SIGTERM while the live backlog waits: it is written out at once, exit 143")
    func sigtermDuringBacklog() throws {
        // One line every 10 s: after a, b is due 10 s later and c 20 s.
        // Input is closed before pace starts, so it ends with b and c waiting.
        var options = PipedPace.Options()
        options.prefill = Array("a\nb\nc\n".utf8)
        options.closeStdin = true
        let pace = try PipedPace(["--rate", "1/10s", "--emit-time"], options)
        let first = try #require(pace.readLine(), "no first line")
        let a = try #require(stamped(first[...]))
        #expect(a.line == "a")
        let stop = monotonicSeconds()
        #expect(pace.send(SIGTERM))
        let end = pace.finish(closingInput: false)
        let waited = monotonicSeconds() - stop
        #expect(end.status == 143)
        #expect(end.errors == "")
        let rest = try #require(stampedLines(String(decoding: end.output, as: UTF8.self)))
        #expect(rest.map(\.line) == ["b", "c"])
        // Both at once, stamped with the time pace saw the signal: after a,
        // well before b's due time.
        #expect(rest.count == 2 && rest[0].micros == rest[1].micros)
        #expect(rest.allSatisfy { $0.micros >= a.micros && $0.micros < a.micros + 10_000_000 })
        #expect(waited < 5, "pace took \(waited) s to write its backlog after SIGTERM")
    }
}

/// Waits (up to 10 s) until process `pid` is stopped (state T in
/// /proc/PID/stat): a SIGSTOP has taken effect.
private func waitUntilStopped(_ pid: pid_t) -> Bool {
    let deadline = monotonicSeconds() + 10
    while monotonicSeconds() < deadline {
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")"),
           stat[stat.index(after: close)...].split(separator: " ").first == "T" {
            return true
        }
        usleep(1000)
    }
    return false
}
