// `--exec` and SIGUSR1 through the built binary: the stats so far count the
// commands, also while pace waits for the last command after end of input,
// live and in replay's run-on, where the answer comes once that command has
// exited. Commands are LiveExecTests' scripts; every ordering is forced by a
// gate or a line read back, never by timing.

import Foundation
import Glibc
import Testing

/// The summary of a run of one line, emitted, whose one command ran.
private let oneCommandSummary = [
    "pace: stats:", "  events in:           1", "  emitted:             1", "  dropped:             0",
    "  distinct keys:       1", "  peak active keys:    1", "  clamped timestamps:  0",
    "  bad-time lines:      0", "  passed through:      0", "  empty lines:         0",
    "  commands run:        1", "  commands failed:     0", "  commands restarted:  0",
    "  commands not run:    0"]

extension ExecAccountingTests {
    @Test("SIGUSR1: the stats so far count the commands too")
    func statsSoFar() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "drop", "--stats", "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGUSR1))
        var soFar: [String] = []
        while let line = pace.readLine(stderr: true) {
            if line.hasPrefix("  commands") { soFar.append(line) }
            if line.hasPrefix("  commands not run:") { break }
        }
        #expect(soFar == ["  commands run:        1", "  commands failed:     0", "  commands restarted:  0",
                          "  commands not run:    1"])
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(status == 0)
        #expect(isGone(pid(one)))
        // Line 2, never run, is not emitted but dropped: what --dropped
        // would get (SPEC), as --metrics counts it.
        let rows = errors.split(separator: "\n").filter { $0.hasPrefix("  emitted:") || $0.hasPrefix("  dropped:") }
        #expect(rows == ["  emitted:             1", "  dropped:             1"])
    }

    @Test("SIGUSR1 while pace waits for the last command after end of input: the stats so far")
    func statsSoFarAfterInput() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1"])
        // The debounce holds line 1 until input ends, which emits it at
        // once: its command starting says pace has left its input loop.
        let pace = try PipedPace(["--debounce", "1h", "--stats", "--exec", c.command])
        pace.write("1 a\n")
        pace.closeInput()
        let one = pace.readLine()
        #expect(one?.hasPrefix("start 1 ") == true)
        #expect(pace.send(SIGUSR1))
        var soFar: [String] = []
        while let line = pace.readLine(stderr: true) {
            soFar.append(line)
            if line.hasPrefix("  commands not run:") { break }
        }
        #expect(soFar == oneCommandSummary)
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 0)
        // The summary at exit, once.
        #expect(errors.split(separator: "\n").map(String.init) == oneCommandSummary)
        #expect(isGone(pid(one)))
    }

    @Test("replay: SIGUSR1 while the run-on's last command runs is answered once it has exited")
    func statsSoFarInReplayRunOn() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1700000000"])
        // The line is emitted by the run-on after end of input, past the
        // driver's last look at SIGUSR1; no --stats, so a summary is the
        // signal's.
        let pace = try PipedPace(["--replay", "--debounce", "1h", "--exec", c.command])
        pace.write("1700000000 a\n")
        pace.closeInput()
        let one = pace.readLine()
        #expect(one?.hasPrefix("start 1700000000 ") == true)
        #expect(pace.send(SIGUSR1))
        c.release("1700000000")
        #expect(pace.readLine() == "end 1700000000")
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 0)
        #expect(errors.split(separator: "\n").map(String.init) == oneCommandSummary)
        #expect(isGone(pid(one)))
    }
}
