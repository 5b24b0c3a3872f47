// `--exec` with `--state`, and the command queue's keys, through the real
// binary: what the commands owe a key for lines they never ran (`--on-busy
// drop`, lines a signal left waiting) is saved for the next run (SPEC State:
// "lines a signal left unrun are among them"), and two keys that look alike
// keep commands of their own. Commands wait at FIFO gates (Commands, in
// LiveExecTests.swift); runs synchronise on output lines, on the --dropped
// file and on pace's reading its input.

import Foundation
import Glibc
import Testing

private let limit = ["--limit", "1/h", "--burst", "5", "--key-field", "2"]

@Suite("--exec with --state, end to end", .serialized)
struct StateExecTests {
    @Test("a line --on-busy drop discarded is owed in the saved state, and the next run counts it")
    func droppedLineOwed() throws {
        let dir = try StateDirectory()
        let c = try Commands("echo \"start $n\"; gate $n")
        c.makeGates(["1"])
        let dropped = dir.url.appendingPathComponent("dropped").path
        let pace = try PipedPace(limit + ["--on-busy", "drop", "--dropped", dropped, "--state", dir.state,
                                          "--exec", c.command])
        pace.write("1 k\n")
        #expect(pace.readLine() == "start 1")
        // k's command runs: line 2 is discarded (and written to --dropped).
        pace.write("2 k\n")
        #expect(waitUntil { (try? String(contentsOfFile: dropped, encoding: .utf8)) == "2 k\n" })
        c.release("1")
        let end = pace.finish()
        #expect(end.status == 0)
        #expect(dir.text.contains("\nk\t1\tbucket\t"))
        let next = try Pace.run(limit + ["--state", dir.state, "--count"], stdin: "3 k\n")
        #expect(next == PaceResult(stdout: Array("2\t3 k\n".utf8), stderr: "", status: 0))
    }

    @Test("lines a SIGTERM left waiting are owed in the saved state, and the next run counts them")
    func linesLeftUnrunOwed() throws {
        let dir = try StateDirectory()
        let c = try Commands("echo \"start $n\"; gate $n")
        c.makeGates(["1"])
        let pace = try PipedPace(limit + ["--state", dir.state, "--exec", c.command])
        pace.write("1 k\n")
        #expect(pace.readLine() == "start 1")
        // Lines 2 and 3 wait behind line 1's command (--on-busy queue).
        pace.write("2 k\n3 k\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(SIGTERM))
        let end = pace.finish()
        #expect(end.status == 143)
        #expect(dir.text.contains("\nk\t2\tbucket\t"))
        let next = try Pace.run(limit + ["--state", dir.state, "--count"], stdin: "4 k\n")
        #expect(next == PaceResult(stdout: Array("3\t4 k\n".utf8), stderr: "", status: 0))
    }

    // With `--delimiter ,` the fields `a b` + `c` and `a` + `b c` are two
    // keys that PACE_KEY shows alike; the queue kept them as one, so the
    // second waited for the first's command (--on-busy queue).
    @Test("two keys that look alike run their commands side by side, each with its PACE_KEY")
    func keysThatLookAlike() throws {
        let c = try Commands("n=${PACE_LINE%%,*}; echo \"start $n $PACE_KEY\"; gate $n")
        c.makeGates(["1", "2"])
        let pace = try PipedPace(["--throttle", "1ns", "--delimiter", ",", "--key-field", "2,3", "--jobs", "2",
                                  "--exec", c.command])
        pace.write("1,a b,c\n")
        #expect(pace.readLine() == "start 1 a b c")
        pace.write("2,a,b c\n")
        #expect(pace.readLine() == "start 2 a b c")
        c.release("1")
        c.release("2")
        let end = pace.finish()
        #expect(end.status == 0)
        #expect(end.errors == "")
    }
}
