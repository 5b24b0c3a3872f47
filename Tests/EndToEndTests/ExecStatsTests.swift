// `--stats` with `--exec`: the summary and the key table count a line whose
// command never ran (`--on-busy drop`, a signal) as dropped, not emitted;
// `emitted` is what the policy emitted and ran, so exempt lines left unrun
// are in `dropped` only. Commands are LiveExecTests' scripts; orderings are
// forced by a gate or a line read back, never by timing.

import Foundation
import Glibc
import Testing

@Suite("--stats with --exec, end to end", .serialized)
struct ExecStatsTests {
    @Test("--stats' key table: lines --on-busy drop discarded and lines a signal left unrun count as dropped, as the totals do")
    func keyTableNotRun() throws {
        let c = try Commands("""
            trap 'ev term; exit 0' TERM
            echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1"])
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--on-busy", "drop", "--stats",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pace.readLine()
        #expect(one?.hasPrefix("start 1 ") == true)
        // a's command runs: line 2 is dropped; b waits for the one job.
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        pace.write("3 b\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term 1")
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 143)
        let lines = errors.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("  emitted:             1") && lines.contains("  dropped:             2"))
        #expect(lines.suffix(4) == ["  key  in  emitted  dropped", "  a     2        1        1",
                                    "  b     1        0        1", ""])
        #expect(isGone(pid(one)))
    }

    @Test("--stats: exempt lines a signal leaves unrun are dropped, and emitted counts only what the policy emitted and ran")
    func exemptNotRun() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n")
        c.makeGates(["1"])
        let pace = try PipedPace(["--limit", "1000/1s", "--key-field", "2", "--exempt", "3=error", "--stats",
                                  "--exec", c.command])
        pace.write("1 a info\n")
        let one = pace.readLine()
        #expect(one?.hasPrefix("start 1 ") == true)
        // All wait for a's command (one job): two passed by the policy, two exempt.
        pace.write("2 a error\n3 b info\n4 b error\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 143)
        let lines = errors.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("  events in:           2") && lines.contains("  emitted:             1")
                && lines.contains("  dropped:             3") && lines.contains("  exempt lines:        2")
                && lines.contains("  commands not run:    3"))
        #expect(lines.suffix(4) == ["  key  in  emitted  dropped", "  a     1        1        0",
                                    "  b     1        0        1", ""])
        #expect(isGone(pid(one)))
    }
}
