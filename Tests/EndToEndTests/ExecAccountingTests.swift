// `--exec` with `--dropped` (and `--trace`) through the built binary: the
// lines whose command never ran go to the dropped file, and every input line
// is found exactly once, on a command's stdin (each command appends its stdin
// to `stdin`) or in the dropped file. Commands are LiveExecTests' scripts;
// every ordering is forced by a gate or a line read back, never by timing.

import Foundation
import Glibc
import Testing

/// A file of the scratch directory, as text ("" if absent).
private func text(_ c: Commands, _ name: String) -> String {
    (try? String(contentsOfFile: c.dir + "/" + name, encoding: .utf8)) ?? ""
}

/// The lines of the commands' stdin and of the dropped file, together, sorted.
private func everyLine(_ c: Commands) -> [Substring] {
    (text(c, "stdin") + text(c, "dropped")).split(separator: "\n").sorted()
}

/// Waits (10 s at most) until process `pid` is gone: its parent reaped it.
private func waitUntilGone(_ pid: pid_t?) -> Bool {
    let giveUp = Date().addingTimeInterval(10)
    while Date() < giveUp {
        if isGone(pid) { return true }
        usleep(1000)
    }
    return false
}

@Suite("--exec with --dropped and --trace", .serialized)
struct ExecAccountingTests {
    @Test("--on-busy drop: the line lands in the dropped file, and counts in its key's next PACE_COUNT")
    func drop() throws {
        let c = try Commands("cat >> \"$d/stdin\"; echo \"start $n $PACE_COUNT $$\"; gate $n; ev end")
        c.makeGates(["1", "3"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "drop", "--dropped", c.dir + "/dropped",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        #expect(one?.hasPrefix("start 1 1 ") == true)
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        c.release("1")
        #expect(pace.readLine() == "end 1")
        // pace has reaped line 1's command: key a is free.
        #expect(waitUntilGone(pid(one)))
        pace.write("3 a\n")
        let three = pace.readLine()
        #expect(three?.hasPrefix("start 3 2 ") == true)
        c.release("3")
        let (rest, errors, status) = pace.finish()
        #expect(String(decoding: rest, as: UTF8.self) == "end 3\n")
        #expect(errors == "")
        #expect(status == 0)
        #expect(text(c, "dropped") == "2 a\n")
        #expect(everyLine(c) == ["1 a", "2 a", "3 a"])
        #expect([pid(one), pid(three)].allSatisfy(isGone))
    }

    @Test("--on-busy restart: the waiting line a newer one replaces lands in the dropped file")
    func restart() throws {
        let c = try Commands("""
            trap 'ev term; gate term-$n; exit 1' TERM
            cat >> "$d/stdin"; echo "start $n $PACE_COUNT $$"; gate $n; ev end
            """)
        c.makeGates(["1", "3", "term-1"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "1h",
                                  "--dropped", c.dir + "/dropped", "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.readLine() == "term 1")
        pace.write("3 a\n")
        #expect(pace.waitUntilInputDrained())
        c.release("term-1")
        // Line 2 never ran: line 3's PACE_COUNT carries it.
        let three = pace.readLine()
        #expect(three?.hasPrefix("start 3 2 ") == true)
        c.release("3")
        #expect(pace.readLine() == "end 3")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 0)
        #expect(text(c, "dropped") == "2 a\n")
        #expect(everyLine(c) == ["1 a", "2 a", "3 a"])
        #expect([pid(one), pid(three)].allSatisfy(isGone))
    }

    @Test("SIGTERM: the lines pending then are emitted, not run, and land in the dropped file")
    func signal() throws {
        let c = try Commands("""
            trap 'ev term; exit 0' TERM
            cat >> "$d/stdin"; echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1"])
        // Both lines are pending (a debounce of an hour) when the signal
        // comes: they are emitted then, and not run.
        let pace = try PipedPace(["--debounce", "1h", "--key-field", "2",
                                  "--dropped", c.dir + "/dropped", "--exec", c.command])
        pace.write("1 a\n")
        #expect(pace.waitUntilInputDrained())
        pace.write("2 b\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 143)
        #expect(text(c, "dropped") == "1 a\n2 b\n")
        #expect(text(c, "stdin") == "")
    }

    @Test("SIGTERM with a command running: it is stopped, the line waiting for it lands in the dropped file")
    func signalWaiting() throws {
        let c = try Commands("""
            trap 'ev term; exit 0' TERM
            cat >> "$d/stdin"; echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1"])
        let pace = try PipedPace(["--throttle", "1ns", "--dropped", c.dir + "/dropped", "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term 1")
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 143)
        #expect(text(c, "dropped") == "2 a\n")
        #expect(everyLine(c) == ["1 a", "2 a"])
        #expect(isGone(pid(one)))
    }

    @Test("replay, --emit-time: the policy's discards and the lines not run after SIGTERM, with their discard times")
    func replaySignal() throws {
        let c = try Commands("cat >> \"$d/stdin\"; echo \"start $n $$\"; [ \"$n\" != 2 ] || gate 2")
        c.makeGates(["2"])
        let pace = try PipedPace(["--throttle", "1s", "--replay", "--time-format", "unix", "--emit-time",
                                  "--dropped", c.dir + "/dropped", "--exec", c.command])
        pace.write("1 a\n1 b\n2 c\n3 d\n")
        let one = pace.readLine()
        let two = pace.readLine()
        #expect(two?.hasPrefix("start 2 ") == true)
        #expect(pace.send(SIGTERM))
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 143)
        #expect(text(c, "dropped") == "1.000000\t1 b\n3.000000\t3 d\n")
        #expect(text(c, "stdin") == "1 a\n2 c\n")
        #expect([pid(one), pid(two)].allSatisfy(isGone))
    }

    @Test("--trace, replay: each command's start and end (its status or signal) among the lines' fates")
    func traceReplay() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--trace", "--exec",
                                   "cat > /dev/null; [ \"$PACE_LINE\" != '2 c' ] || exit 3; [ \"$PACE_LINE\" != '4 d' ] || kill -9 $$"],
                                  stdin: "1 a\n1.5 b\n2 c\n4 d\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: trace: line 1: emitted at 1.000000
            pace: trace: line 1: command started
            pace: trace: line 1: command exited with status 0
            pace: trace: line 2: dropped inside the window ending at 2.000000
            pace: trace: line 3: emitted at 2.000000
            pace: trace: line 3: command started
            pace: trace: line 3: command exited with status 3
            pace: line 3: command exited with status 3
            pace: trace: line 4: emitted at 4.000000
            pace: trace: line 4: command started
            pace: trace: line 4: command killed by signal 9
            pace: line 4: command killed by signal 9

            """, status: 123))
    }

    @Test("--trace, live: a restart's SIGTERM, the replaced line not run, a shutdown's SIGTERM and lines not run")
    func traceLive() throws {
        let c = try Commands("""
            trap 'ev term; gate term-$n; exit 1' TERM
            echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1", "3", "term-1", "term-3"])
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--on-busy", "restart", "--kill-after", "1h", "--trace",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.readLine() == "term 1")
        pace.write("3 a\n")
        #expect(pace.waitUntilInputDrained())
        c.release("term-1")
        let three = pace.readLine()
        #expect(three?.hasPrefix("start 3 ") == true)
        // Key b waits for the one slot: SIGTERM leaves it not run.
        pace.write("4 b\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term 3")
        c.release("term-3")
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 143)
        // Emitted times are the live clock's: only the commands' lines.
        let commandLines = errors.split(separator: "\n").filter { !$0.contains("emitted at") }.map(String.init)
        #expect(commandLines.prefix(5) == [
            "pace: trace: line 1: command started",
            "pace: trace: line 1: command sent SIGTERM: restarted by line 2",
            "pace: trace: line 2: not run: replaced by line 3",
            "pace: trace: line 1: command exited with status 1",
            "pace: trace: line 3: command started",
        ])
        // Line 4 is discarded as it waits when the shutdown comes, or, when
        // the signal is seen as line 4 is handed over (the sink asks), after
        // line 3's SIGTERM: either way not run, for the same reason.
        #expect(Set(commandLines.dropFirst(5).dropLast()) == [
            "pace: trace: line 4: not run: pace is stopping",
            "pace: trace: line 3: command sent SIGTERM: pace is stopping",
        ])
        #expect(commandLines.count == 8 && commandLines.last == "pace: trace: line 3: command exited with status 1")
        #expect(errors.split(separator: "\n").filter { $0.contains("emitted at") }.count == 4)
        #expect([pid(one), pid(three)].allSatisfy(isGone))
    }

    @Test("--resolve-after, SIGTERM: resolved lines never run count as commands not run, not as dropped, and emitted stays what ran")
    func resolvedCopiesNotRun() throws {
        let dir = NSTemporaryDirectory() + "pace-resolved-not-run-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(dir, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // a's command runs; b, c and d wait; then each key's episode
        // resolves, and its resolved line waits too.
        let pace = try PipedPace(["--limit", "1000/1s", "--key-field", "1", "--resolve-after", "100ms", "--stats", "--trace",
                                  "--dropped", dir + "/dropped", "--exec", "exec sleep 300"])
        pace.write("a 1\nb 1\nc 1\nd 1\n")
        var resolved = 0
        while resolved < 4, let line = pace.readLine(stderr: true) {
            if line.hasSuffix("(this line again)") { resolved += 1 }
        }
        #expect(resolved == 4)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 143)
        func row(_ name: String) -> String? {
            end.errors.split(separator: "\n").first { $0.hasPrefix("  \(name):") }.map { String($0.split(separator: " ").last!) }
        }
        #expect(row("events in") == "4" && row("emitted") == "1" && row("dropped") == "3")
        #expect(row("commands run") == "1" && row("commands not run") == "7")
        // The copies go to no file: --dropped has the input lines alone.
        #expect((try? String(contentsOfFile: dir + "/dropped", encoding: .utf8)) == "b 1\nc 1\nd 1\n")
    }

    @Test("a write error on the dropped file: its message, exit 1, once the running command has exited")
    func droppedWriteError() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "drop", "--dropped", "/dev/full",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        c.release("1")
        let (rest, errors, status) = pace.finish()
        #expect(String(decoding: rest, as: UTF8.self) == "end 1\n")
        #expect(errors == "pace: /dev/full: No space left on device\n")
        #expect(status == 1)
        #expect(isGone(pid(one)))
    }
}
