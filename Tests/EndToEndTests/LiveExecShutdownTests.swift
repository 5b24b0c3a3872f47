// `--exec` in live mode through the built binary, at the end of a run: end of
// input waits for every command running or waiting; a signal sends SIGTERM to
// the running command, leaves the waiting lines unrun and makes pace exit
// 128 + N once it is gone; `--kill-after` and a second signal send SIGKILL.
// Commands are LiveExecTests' scripts, every ordering forced by a gate or a
// line read back.

import Foundation
import Glibc
import Testing

extension LiveExecTests {
    @Test("end of input: a pending line is emitted and its command runs; pace waits for it")
    func endOfInputWaits() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1"])
        let pace = try PipedPace(["--debounce", "1h", "--exec", c.command])
        pace.write("1 a\n")
        // Debounce: line 1 is pending until input ends; then it runs.
        pace.closeInput()
        let one = pid(pace.readLine())
        #expect(children(of: pace.pid) == [one!])
        c.release("1")
        let (rest, errors, status) = pace.finish()
        #expect(String(decoding: rest, as: UTF8.self) == "end 1\n")
        #expect(errors == "")
        #expect(status == 0)
        #expect(isGone(one))
    }

    @Test("end of input with commands running and waiting: every one runs before pace exits")
    func endOfInputRunsWaiting() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1", "2"])
        let pace = try PipedPace(["--throttle", "1ns", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        pace.closeInput()
        // pace has read the end (it sleeps in its wait) and still owns line 1's command.
        #expect(pace.waitUntilBlockedWriting(holding: 0) != nil)
        #expect(children(of: pace.pid) == [one!])
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let two = pid(pace.readLine())
        c.release("2")
        let (rest, errors, status) = pace.finish()
        #expect(String(decoding: rest, as: UTF8.self) == "end 2\n")
        #expect(errors == "")
        #expect(status == 0)
        #expect([one, two].allSatisfy(isGone))
    }

    @Test("SIGINT, SIGTERM, SIGHUP or SIGQUIT (or SIGUSR2, SIGALRM, whose default would orphan the command): SIGTERM to the running command, the waiting line never runs, pace exits 128 + N once it is gone",
          arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2, SIGALRM, SIGPROF])
    func signal(_ number: Int32) throws {
        let c = try Commands("""
            trap 'ev term; gate term-$n; exit 0' TERM
            echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1", "2", "term-1"])
        let pace = try PipedPace(["--throttle", "1ns", "--kill-after", "1h", "--stats", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(number))
        #expect(pace.readLine() == "term 1")
        // pace waits for its command: still there, still pace's child.
        #expect(children(of: pace.pid) == [one!])
        c.release("term-1")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors.contains("  commands run:        1\n  commands failed:     0\n  commands restarted:  0\n"
                                + "  commands not run:    1\n"))
        #expect(status == 128 + number)
        #expect(isGone(one))
    }

    @Test("a command that ignores SIGTERM: SIGKILL after --kill-after; a second signal sends it at once and says how many lines did not run")
    func shutdownKills() throws {
        for (second, waiting) in [(false, 0), (true, 0), (true, 2)] {
            let c = try Commands("""
                trap 'ev term' TERM
                echo "start $n $$"
                while :; do gate $n; done
                """)
            c.makeGates(["1"])
            let pace = try PipedPace(["--throttle", "1ns", "--kill-after", second ? "1h" : "200ms", "--exec", c.command])
            pace.write("1 a\n")
            let one = pid(pace.readLine())
            // Lines waiting for line 1's command: the signal leaves them unrun.
            for line in 0..<waiting {
                pace.write("\(line + 2) a\n")
                #expect(pace.waitUntilInputDrained())
            }
            #expect(pace.send(SIGINT))
            #expect(pace.readLine() == "term 1")
            // An hour's --kill-after: only the second signal ends it in time.
            if second { #expect(pace.send(SIGINT)) }
            let (rest, errors, status) = pace.finish(closingInput: false)
            #expect(rest == [])
            #expect(errors == (second ? "pace: interrupted: \(waiting) line\(waiting == 1 ? "" : "s") not run\n" : ""))
            #expect(status == 130)
            #expect(isGone(one))
        }
    }

    @Test("a signal while the last command runs: the waiting line it discards carries the time pace saw the signal")
    func discardsCarryTheSignalsTime() throws {
        let c = try Commands("""
            trap 'ev term; exit 0' TERM
            echo "start $n $PACE_TIME"
            gate $n
            """)
        c.makeGates(["1"])
        let dropped = c.dir + "/dropped"
        let pace = try PipedPace(["--throttle", "1ns", "--dropped", dropped, "--emit-time", "--exec", c.command])
        pace.write("1 a\n")
        let start = pace.readLine()
        pace.write("2 a\n")
        #expect(pace.waitUntilInputDrained())
        pace.closeInput()
        // Line 2 waits for line 1's command. The pause puts time between
        // its submission and the signal: the condition under test, not a
        // wait for pace.
        usleep(300_000)
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term 1")
        let (rest, _, status) = pace.finish(closingInput: false)
        #expect(rest == [])
        #expect(status == 143)
        let fields = try String(contentsOfFile: dropped, encoding: .utf8).split(separator: "\t")
        #expect(fields.count == 2 && fields.last == "2 a\n")
        let lineOne = start.flatMap { Double($0.split(separator: " ").last ?? "") }
        let discarded = fields.first.flatMap { Double($0) }
        #expect(lineOne != nil && discarded != nil)
        if let lineOne, let discarded { #expect(discarded - lineOne >= 0.3) }
    }
}
