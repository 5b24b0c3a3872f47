// `--exec` in live mode through the built binary, with real commands. Each
// command is a small sh script that says what it does on pace's stdout
// (which it inherits: "start 3 <pid>", "end 3", "term 3") and blocks on a gate
// FIFO of its own until the test opens it, so every ordering is forced by the
// test and read back in order, never left to timing. Where a rule says a
// command must not run, the transcript read to its end shows it did not.
// /proc/PID/task/PID/children says which children pace has: a command that
// has ended and is still listed is a zombie pace did not reap.

import Foundation
import Glibc
import Testing

/// A scratch directory with the commands' script and their gates.
final class Commands {
    let dir: String

    /// `body` runs with `n` (the line's first word), `ev WORD` (prints
    /// "WORD n"), `gate NAME` (blocks until the test releases NAME) and `d`
    /// (the scratch directory).
    init(_ body: String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-live-exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let script = """
            d='\(dir)'
            n=${PACE_LINE%% *}
            ev() { echo "$1 $n"; }
            gate() { { read x < '\(dir)/gate-'"$1"; } 2>/dev/null || :; }
            \(body)

            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: dir + "/script"))
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// The `--exec` value.
    var command: String { ". '\(dir)/script'" }

    func makeGates(_ names: [String]) {
        for name in names { mkfifo(dir + "/gate-" + name, 0o600) }
    }

    /// Lets the command waiting at gate `name` go on: opens the FIFO for
    /// writing once its reader is there (10 s at most), and closes it.
    @discardableResult
    func release(_ name: String) -> Bool {
        let giveUp = Date().addingTimeInterval(10)
        while Date() < giveUp {
            let fd = open(dir + "/gate-" + name, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                close(fd)
                return true
            }
            usleep(1000)
        }
        return false
    }
}

/// The children pace has now (zombies included).
func children(of pid: pid_t) -> Set<pid_t> {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return [] }
    return Set(text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
}

/// "start N PID" → PID.
func pid(_ line: String?) -> pid_t? {
    line.flatMap { $0.split(separator: " ").last.flatMap { pid_t($0) } }
}

/// Whether no process `pid` exists any more (reaped, not a zombie).
func isGone(_ pid: pid_t?) -> Bool {
    guard let pid else { return false }
    return kill(pid, 0) == -1 && errno == ESRCH
}

@Suite("--exec, live", .serialized)
struct LiveExecTests {
    @Test("one command per key, --jobs at once; a busy key's line holds back no other key; exited commands are reaped")
    func onePerKeyAndJobs() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1", "2", "3", "4"])
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--jobs", "2", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n3 b\n")
        // Line 2's key is busy: line 3 takes the second slot.
        let three = pid(pace.readLine())
        // Both slots are taken: line 4 waits, though its key is free.
        pace.write("4 c\n")
        #expect(children(of: pace.pid) == [one!, three!])
        c.release("3")
        #expect(pace.readLine() == "end 3")
        // The freed slot goes to line 4: line 2's key still runs line 1.
        let four = pid(pace.readLine())
        #expect(children(of: pace.pid) == [one!, four!])
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let two = pid(pace.readLine())
        #expect(children(of: pace.pid) == [four!, two!])
        c.release("4")
        c.release("2")
        let (rest, errors, status) = pace.finish()
        #expect(Set(String(decoding: rest, as: UTF8.self).split(separator: "\n")) == ["end 4", "end 2"])
        #expect(errors == "")
        #expect(status == 0)
        #expect([one, two, three, four].allSatisfy(isGone))
    }

    @Test("--on-busy queue: a busy key's lines run after it, in order")
    func queue() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1", "2", "3"])
        let pace = try PipedPace(["--throttle", "1ns", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        // A read of its own: two lines read together share one instant,
        // and the throttle would drop the second.
        #expect(pace.waitUntilInputDrained())
        pace.write("3 a\n")
        #expect(pace.waitUntilInputDrained())
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let two = pid(pace.readLine())
        #expect(two != nil && children(of: pace.pid) == [two!])
        c.release("2")
        #expect(pace.readLine() == "end 2")
        let three = pid(pace.readLine())
        c.release("3")
        let (rest, errors, status) = pace.finish()
        #expect(String(decoding: rest, as: UTF8.self) == "end 3\n")
        #expect(errors == "")
        #expect(status == 0)
        #expect([one, two, three].allSatisfy(isGone))
    }

    @Test("--on-busy drop: a line whose key's command runs never runs; --stats counts it")
    func drop() throws {
        let c = try Commands("echo \"start $n $$\"; gate $n; ev end")
        c.makeGates(["1", "3"])
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--jobs", "2", "--on-busy", "drop",
                                  "--stats", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n3 b\n")
        let three = pid(pace.readLine())
        c.release("1")
        #expect(pace.readLine() == "end 1")
        c.release("3")
        #expect(pace.readLine() == "end 3")
        let (rest, errors, status) = pace.finish()
        // Line 2 would have started when line 1 ended.
        #expect(rest == [])
        #expect(errors.contains("  commands run:        2\n  commands failed:     0\n  commands restarted:  0\n"
                                + "  commands not run:    1\n"))
        #expect(status == 0)
        #expect([one, three].allSatisfy(isGone))
    }

    @Test("--on-busy drop: an exempt line waits behind its key's command and counts 1; what the key owes goes to its next line")
    func exemptLineCountsOne() throws {
        let c = try Commands("echo \"start $n $PACE_COUNT $$\"; gate $n; ev end")
        c.makeGates(["1", "3", "4"])
        let dropped = c.dir + "/dropped"
        let pace = try PipedPace(["--throttle", "1ns", "--key-field", "2", "--on-busy", "drop", "--exempt", "3=e",
                                  "--dropped", dropped, "--exec", c.command])
        /// "start N COUNT PID" → "start N COUNT", and PID.
        func started() -> (String, pid_t?) {
            let line = pace.readLine() ?? ""
            return (line.split(separator: " ").prefix(3).joined(separator: " "), pid(line))
        }
        pace.write("1 a\n")
        #expect(started().0 == "start 1 1")
        // One write, read at once: line 2 is dropped (its key's command
        // runs), then exempt line 3 waits behind it, before pace waits again.
        pace.write("2 a\n3 a e\n")
        #expect(waitUntil { (try? String(contentsOfFile: dropped, encoding: .utf8)) == "2 a\n" })
        c.release("1")
        #expect(pace.readLine() == "end 1")
        let (three, threePID) = started()
        #expect(three == "start 3 1")
        c.release("3")
        #expect(pace.readLine() == "end 3")
        // Line 4 comes once line 3's command is gone (else it is dropped too).
        #expect(waitUntil { isGone(threePID) })
        pace.write("4 a\n")
        #expect(started().0 == "start 4 2")
        c.release("4")
        #expect(pace.readLine() == "end 4")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [] && errors == "" && status == 0)
    }

    @Test("--on-busy restart: the old command gets SIGTERM, the waiting line is replaced, the newest runs")
    func restart() throws {
        // Line 1 takes its time to stop: line 3 comes while line 2 waits.
        let c = try Commands("""
            trap 'ev term; gate term-$n; exit 1' TERM
            echo "start $n $$"; gate $n; ev end
            """)
        c.makeGates(["1", "2", "3", "term-1"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "1h", "--stats",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        #expect(pace.readLine() == "term 1")
        pace.write("3 a\n")
        // Read means handled: pace takes a read's lines before it looks at
        // its commands again.
        #expect(pace.waitUntilInputDrained())
        c.release("term-1")
        // Line 1's exit (status 1, after pace's SIGTERM) is no failure.
        let three = pace.readLine()
        #expect(three?.hasPrefix("start 3 ") == true)
        #expect(children(of: pace.pid) == [pid(three)!])
        c.release("3")
        #expect(pace.readLine() == "end 3")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors.contains("  commands run:        2\n  commands failed:     0\n  commands restarted:  1\n"
                                + "  commands not run:    1\n"))
        #expect(!errors.contains("command exited"))
        #expect(status == 0)
        #expect([one, pid(three)].allSatisfy(isGone))
    }

    @Test("--kill-after: a restarted command that ignores SIGTERM gets SIGKILL, then the new line runs")
    func killAfter() throws {
        let c = try Commands("""
            trap 'ev term' TERM
            echo "start $n $$"
            while :; do gate $n; done
            """)
        c.makeGates(["1", "2"])
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "200ms",
                                  "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        #expect(pace.readLine() == "term 1")
        // Line 1 loops on: only SIGKILL, 200 ms after SIGTERM, ends it.
        let two = pid(pace.readLine())
        #expect(isGone(one))
        #expect(children(of: pace.pid) == [two!])
        pace.closeInput()
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term 2")
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 143)
        #expect(isGone(two))
    }

    @Test("a failing command: its stderr line, pace goes on, and exits 123")
    func failure() throws {
        let c = try Commands("echo \"start $n $$\"; [ \"$n\" != 2 ]")
        let pace = try PipedPace(["--throttle", "1ns", "--exec", c.command])
        pace.write("1 a\n")
        let one = pid(pace.readLine())
        pace.write("2 a\n")
        let two = pid(pace.readLine())
        #expect(pace.readLine(stderr: true) == "pace: line 2: command exited with status 1")
        pace.write("3 a\n")
        let three = pid(pace.readLine())
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 123)
        #expect([one, two, three].allSatisfy(isGone))
    }
}
