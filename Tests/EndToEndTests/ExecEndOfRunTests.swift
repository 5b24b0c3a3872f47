// `--exec` at the end of input: pace waits for the commands still running
// or queued, and only then takes `--state` and the last `--metrics`, so both
// hold what the commands did (SPEC State: "lines a signal left unrun are
// among them"; Watching a run: the counters "agree with `--stats`").
// Commands wait at FIFO gates (LiveExecTests.swift); the end of input is
// known to be handled once `--metrics` counts every line read.

import Foundation
import Glibc
import Testing

/// Waits until the metrics file at `path` holds `line` (a whole line).
private func waitForMetric(_ path: String, _ line: String) -> Bool {
    waitUntil { (try? String(contentsOfFile: path, encoding: .utf8))?.contains("\n\(line)\n") == true }
}

@Suite("--exec at the end of input, end to end", .serialized)
struct ExecEndOfRunTests {
    @Test("a SIGTERM after the end of input: the lines it left unrun are owed in --state and discarded in --metrics")
    func signalAfterEndOfInput() throws {
        let dir = try StateDirectory()
        let metrics = dir.url.appendingPathComponent("m.prom").path
        let c = try Commands("ev start; gate $n")
        c.makeGates(["1"])
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--state", dir.state,
                                  "--metrics", metrics, "--stats", "--exec", c.command])
        pace.write("1 a\n")
        #expect(pace.readLine() == "start 1")
        // Lines 2 and 3 wait behind line 1's command (one job); input ends.
        pace.write("2 a\n3 b\n")
        pace.closeInput()
        #expect(waitForMetric(metrics, "pace_lines_read_total 3"))
        #expect(pace.send(SIGTERM))
        let end = pace.finish()
        #expect(end.status == 143)
        #expect(dir.text.hasSuffix("keys\t2\na\t1\tidle\nb\t1\tidle\nend\n"))
        #expect(end.errors.contains("\n  dropped:             2\n"))
        let text = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
        #expect(text.contains("\npace_lines_discarded_total 2\n"))
        #expect(text.contains("\npace_commands_started_total 1\n"))
    }

    @Test("commands that fail after the end of input are counted in the last --metrics, as in --stats")
    func commandsAfterEndOfInput() throws {
        let dir = try StateDirectory()
        let metrics = dir.url.appendingPathComponent("m.prom").path
        let c = try Commands("ev start; gate $n; exit 1")
        c.makeGates(["1", "2", "3"])
        let pace = try PipedPace(["--throttle", "1s", "--key-field", "2", "--metrics", metrics, "--stats",
                                  "--exec", c.command])
        pace.write("1 a\n2 b\n3 c\n")
        #expect(pace.readLine() == "start 1")
        pace.closeInput()
        #expect(waitForMetric(metrics, "pace_lines_read_total 3"))
        for gate in ["1", "2", "3"] { #expect(c.release(gate)) }
        let end = pace.finish()
        #expect(end.status == 123)
        #expect(end.errors.contains("\n  commands run:        3\n  commands failed:     3\n"))
        let text = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
        #expect(text.contains("\npace_commands_started_total 3\n"))
        #expect(text.contains("\npace_commands_failed_total 3\n"))
    }
}
