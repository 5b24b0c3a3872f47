// `--state` with `--resolve-after`, live, through the real binary: end of
// input and SIGTERM close no episode; each is saved open with its last
// line, and the next run resolves it, at once when its T passed while pace
// was down (in the order of T), or at T while it waits on an open stdin;
// an event of its key before T goes on with `repeat`. Runs synchronise on
// output lines and pace's exit; the only waits on the clock are downtimes.

import Foundation
import Glibc
import Testing

extension StateDirectory {
    /// The saved open episode of `key`: its T (seconds) and its last line
    /// as the file writes it (escaped).
    func episode(of key: String) -> (resolveAt: Double, lastLine: String)? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.first == Substring(key), let at = fields.firstIndex(of: "episode"), at + 2 < fields.count
            else { continue }
            return (Double(fields[at + 1])!, String(fields[at + 2]))
        }
        return nil
    }

    /// The saved window end (seconds) of `key`, whose line has an episode.
    func windowEnd(episodeKey key: String) -> Double? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count == 7, fields[0] == key, fields[2] == "window" { return Double(fields[3]) }
        }
        return nil
    }
}

@Suite("--state with --resolve-after, end to end")
struct StateEpisodeEndToEndTests {
    @Test("SIGTERM saves open episodes; the next run resolves the overdue ones at once, in the order of their T")
    func overdueAfterSigterm() throws {
        let dir = try StateDirectory()
        let flags = ["--throttle", "1s", "--key-field", "1", "--resolve-after", "300ms", "--count", "--state", dir.state]
        let first = try PipedPace(flags)
        first.write("a 1\n")
        #expect(first.readLine() == "1\tfirst\ta 1")
        first.write("b 1\n")
        #expect(first.readLine() == "1\tfirst\tb 1")
        first.write("a 2\n")
        #expect(first.waitUntilInputDrained())
        #expect(first.send(SIGTERM))
        let end = first.finish(closingInput: false)
        // No resolved line: both episodes are saved open.
        #expect(end.output == [] && end.errors == "" && end.status == 143)
        let a = try #require(dir.episode(of: "a"))
        let b = try #require(dir.episode(of: "b"))
        #expect(a.lastLine == "a 2" && b.lastLine == "b 1")
        #expect(b.resolveAt < a.resolveAt)
        #expect(dir.text.contains("\na\t1\twindow\t"))
        dir.waitUntilWallClockPasses(a.resolveAt)
        // b's T came first (the file has a first); a's resolved line carries a 2's discard.
        let second = try Pace.run(flags, stdin: "")
        #expect(second == PaceResult(stdout: Array("0\tresolved\tb 1\n1\tresolved\ta 2\n".utf8), stderr: "", status: 0))
        #expect(dir.episode(of: "a") == nil && dir.episode(of: "b") == nil)
    }

    @Test("end of input saves an episode open; the next run resolves it at its T, while stdin is still open")
    func resolvedAtItsTime() throws {
        let dir = try StateDirectory()
        let flags = ["--throttle", "1s", "--resolve-after", "1500ms", "--count", "--state", dir.state]
        // The last line is bytes, not text: invalid UTF-8 and a backslash.
        #expect(try Pace.run(flags, stdin: Array("x\t1\n".utf8) + [0xFF, 0x5C, 0x0A])
                == PaceResult(stdout: Array("1\tfirst\tx\t1\n".utf8), stderr: "", status: 0))
        let saved = try #require(dir.episode(of: ""))
        #expect(saved.lastLine == #"\xff\\"#)
        let second = try PipedPace(flags)
        // Not due at start: it comes at T, on its own, with the discard it owes.
        let line = second.readLine(timeout: 20)
        let seen = Date().timeIntervalSince1970
        // readLine decodes the 0xFF as U+FFFD.
        #expect(line == "1\tresolved\t\u{FFFD}\\")
        #expect(seen >= saved.resolveAt)
        let end = second.finish()
        #expect(end.output == [] && end.errors == "" && end.status == 0)
        #expect(dir.episode(of: "") == nil)
    }

    @Test("an event of the key before T goes on with the episode: `repeat`, with the count owed across the restart")
    func repeatAfterRestart() throws {
        let dir = try StateDirectory()
        let flags = ["--throttle", "200ms", "--key-field", "1", "--resolve-after", "1h", "--count", "--state", dir.state]
        #expect(try Pace.run(flags, stdin: "a 1\na 2\na 3\n")
                == PaceResult(stdout: Array("1\tfirst\ta 1\n".utf8), stderr: "", status: 0))
        dir.waitUntilWallClockPasses(try #require(dir.windowEnd(episodeKey: "a")))
        let second = try Pace.run(flags, stdin: "a 4\nb 1\n")
        #expect(second == PaceResult(stdout: Array("3\trepeat\ta 4\n1\tfirst\tb 1\n".utf8), stderr: "", status: 0))
        #expect(dir.episode(of: "a")?.lastLine == "a 4")
    }

    @Test("SIGTERM with pending lines: they go out, no episode closes, and T is at least the exit")
    func pendingAtSigterm() throws {
        let dir = try StateDirectory()
        let flags = ["--debounce", "10s", "--key-field", "1", "--resolve-after", "1ms", "--state", dir.state]
        let first = try PipedPace(flags)
        first.write("k1 one\nk2 two\nk1 three\n")
        #expect(first.waitUntilInputDrained())
        let beforeExit = Date().timeIntervalSince1970
        #expect(first.send(SIGTERM))
        let end = first.finish(closingInput: false)
        #expect(String(decoding: end.output, as: UTF8.self) == "first\tk2 two\nfirst\tk1 three\n")
        #expect(end.status == 143)
        let k1 = try #require(dir.episode(of: "k1"))
        let k2 = try #require(dir.episode(of: "k2"))
        #expect(k1.lastLine == "k1 three" && k2.lastLine == "k2 two")
        #expect(k1.resolveAt >= beforeExit && k2.resolveAt == k1.resolveAt)
        dir.waitUntilWallClockPasses(k1.resolveAt)
        // One T: in the order of their keys' last events, as at a live end.
        #expect(try Pace.run(flags, stdin: "")
                == PaceResult(stdout: Array("resolved\tk2 two\nresolved\tk1 three\n".utf8), stderr: "", status: 0))
    }

    @Test("--exec: an overdue saved episode's resolved line runs at start, with PACE_EVENT and the count owed; --trace names it")
    func overdueToExec() throws {
        let dir = try StateDirectory()
        let flags = ["--throttle", "1s", "--resolve-after", "100ms", "--state", dir.state]
        #expect(try Pace.run(flags, stdin: "a 1\na 2\n").stdout == Array("first\ta 1\n".utf8))
        dir.waitUntilWallClockPasses(try #require(dir.episode(of: "")).resolveAt)
        let next = try Pace.run(flags + ["--trace", "--exec", "echo \"$PACE_EVENT $PACE_COUNT $PACE_LINE\""], stdin: "")
        #expect(next.stdout == Array("resolved 1 a 2\n".utf8) && next.status == 0)
        #expect(next.stderr.hasPrefix("pace: trace: saved line 1: its key's episode resolved at "))
        #expect(next.stderr.hasSuffix("pace: trace: saved line 1: command started\npace: trace: saved line 1: command exited with status 0\n"))
    }
}
