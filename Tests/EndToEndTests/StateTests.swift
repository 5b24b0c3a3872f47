// `--state FILE`, live, through the real binary on real files: what one run
// saves the next one loads (a window, a count owed, keys of any byte), and
// that FILE always holds one whole state (kill -9, a failed save); what is
// refused is StateRefusalTests'. Runs synchronise on output lines, on FILE
// appearing and on pace's exit; the only waits on the clock are downtimes,
// until a saved window has ended.

import Foundation
import Glibc
import Testing

/// A directory of the test's own, removed at the end.
final class StateDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pace-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    var state: String { url.appendingPathComponent("keys.state").path }
    var bytes: [UInt8]? { FileManager.default.contents(atPath: state).map { Array($0) } }
    var text: String { String(decoding: bytes ?? [], as: UTF8.self) }

    func write(_ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: state, contents: Data(bytes)) }

    /// The wall-clock time (seconds) the state's line for `key` says its
    /// window ends.
    func windowEnd(of key: String) -> Double? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count == 4, fields[0] == key, fields[2] == "window" { return Double(fields[3]) }
        }
        return nil
    }

    /// Downtime: pace is not running while the wall clock passes `end`.
    func waitUntilWallClockPasses(_ end: Double) {
        while Date().timeIntervalSince1970 <= end + 0.001 { usleep(10_000) }
    }
}

private let flags = ["--throttle", "1h", "--key-field", "1"]

@Suite("--state, end to end")
struct StateEndToEndTests {
    @Test("a throttle window survives SIGTERM and a restart: the second run drops what the first would have")
    func windowSurvivesRestart() throws {
        let dir = try StateDirectory()
        let first = try PipedPace(flags + ["--state", dir.state])
        first.write("a 1\n")
        #expect(first.readLine() == "a 1")
        first.write("a 2\nb 1\n")
        #expect(first.readLine() == "b 1")
        #expect(first.waitUntilInputDrained())
        kill(first.pid, SIGTERM)
        let end = first.finish(closingInput: false)
        #expect(end.output == [] && end.errors == "" && end.status == 143)
        #expect(dir.text.hasPrefix("pace state 1\nflags\t--throttle=3600000000000ns\t--trailing=absent\t--burst=absent\t--then-every=absent\t--resolve-after=absent\t--key-field=1\t--delimiter=absent\nkeys\t2\n"))

        let second = try Pace.run(flags + ["--state", dir.state, "--count"], stdin: "a 3\nc 1\nb 2\nc 2\n")
        // a owes 2 (a 2, a 3), b 1, c's new window took c 2: nothing of a
        // or b passes within the hour their windows opened.
        #expect(second == PaceResult(stdout: Array("1\tc 1\n".utf8), stderr: "", status: 0))
        let lines = dir.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines[2] == "keys\t3")
        #expect(Set(lines[3...5].map { $0.split(separator: "\t").prefix(3).joined(separator: " ") })
                == ["a 2 window", "b 1 window", "c 1 window"])
        #expect(lines[6] == "end")
    }

    @Test("a window that ran out while pace was down does not hold; what it owed is counted")
    func windowEndsDuringDowntime() throws {
        let dir = try StateDirectory()
        let window = ["--throttle", "300ms", "--key-field", "1", "--state", dir.state]
        let first = try Pace.run(window, stdin: "a 1\na 2\na 3\nb 1\n")
        #expect(first == PaceResult(stdout: Array("a 1\nb 1\n".utf8), stderr: "", status: 0))
        let end = try #require(dir.windowEnd(of: "a"))
        dir.waitUntilWallClockPasses(end)
        // Without --count the first run kept a's 2 discards; this one shows them.
        let second = try Pace.run(window + ["--count"], stdin: "a 4\nb 2\n")
        #expect(second == PaceResult(stdout: Array("3\ta 4\n1\tb 2\n".utf8), stderr: "", status: 0))
    }

    @Test("what a run owes reaches a later run's --exec as PACE_COUNT")
    func owedToExec() throws {
        let dir = try StateDirectory()
        let window = ["--throttle", "300ms", "--key-field", "1", "--state", dir.state]
        #expect(try Pace.run(window, stdin: "a 1\na 2\n").stdout == Array("a 1\n".utf8))
        dir.waitUntilWallClockPasses(try #require(dir.windowEnd(of: "a")))
        let next = try Pace.run(window + ["--exec", "echo \"$PACE_COUNT $PACE_LINE\""], stdin: "a 3\n")
        #expect(next == PaceResult(stdout: Array("2 a 3\n".utf8), stderr: "", status: 0))
    }

    @Test("the window that holds in the next run is the saved one (control for the downtime test)")
    func windowHoldsWithoutDowntime() throws {
        let dir = try StateDirectory()
        let window = ["--throttle", "1h", "--key-field", "1", "--state", dir.state]
        #expect(try Pace.run(window, stdin: "a 1\n").stdout == Array("a 1\n".utf8))
        #expect(try Pace.run(window + ["--count"], stdin: "a 2\na 3\n").stdout == [])
        #expect(dir.text.contains("\na\t2\twindow\t"))
    }

    @Test("--stats counts a loaded key among the distinct keys at its first event of the run, not before")
    func loadedKeysInStats() throws {
        let dir = try StateDirectory()
        let window = ["--throttle", "1h", "--key-field", "1", "--state", dir.state]
        #expect(try Pace.run(window, stdin: "a 1\nb 1\n").stdout == Array("a 1\nb 1\n".utf8))
        // a and b are loaded with their windows open; a has an event, c is new.
        let next = try Pace.run(window + ["--stats"], stdin: "a 2\nc 1\n")
        #expect(next.stdout == Array("c 1\n".utf8))
        let rows = next.stderr.split(separator: "\n").map(String.init)
        #expect(rows.contains("  distinct keys:       2"))
        #expect(rows.contains("pace: stats by key (top 2 of 2 by events in):"))
        // A run with no event: no distinct key, though a, b and c are loaded.
        let idle = try Pace.run(window + ["--stats"], stdin: "")
        #expect(idle.stderr.split(separator: "\n").contains("  distinct keys:       0"))
    }

    @Test("--limit's bucket is kept: its tokens spent in one run are spent in the next")
    func bucketSurvivesRestart() throws {
        let dir = try StateDirectory()
        let limit = ["--limit", "2/h", "--state", dir.state]
        #expect(try Pace.run(limit, stdin: "1\n").stdout == Array("1\n".utf8))
        #expect(try Pace.run(limit, stdin: "2\n3\n").stdout == Array("2\n".utf8))
        #expect(dir.text.contains("\n\t1\tbucket\t"))
    }

    @Test("--throttle-last with --batch keeps its window as --throttle-last does")
    func batchWindowSurvivesRestart() throws {
        let dir = try StateDirectory()
        let batched = ["--throttle-last", "1h", "--batch", "5", "--state", dir.state]
        #expect(try Pace.run(batched, stdin: "a\nb\nc\n").stdout == Array("a\nb\nc\n".utf8))
        #expect(dir.text.contains("\nkeys\t1\n\t0\twindow\t"))
    }

    @Test("a line a timer emitted whose write failed is emitted in --stats and not owed in the state")
    func failedTimerWriteNotOwed() throws {
        let dir = try StateDirectory()
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        defer { close(full) }
        let pace = try PipedPace(["--debounce", "100ms", "--stats", "--state", dir.state], .init(stdoutFile: full))
        // Input stays open: the debounce's timer emits the line, and the
        // write's error ends the run.
        pace.write("a\n")
        let end = pace.finish(closingInput: false)
        #expect(end.status == 1)
        #expect(end.errors.contains("\n  emitted:             1\n"))
        #expect(dir.text.contains("\nkeys\t0\nend\n"))
    }

    @Test("keys of any byte round-trip: TAB, invalid UTF-8, backslash, a JSON key with a newline")
    func keysOfAnyByte() throws {
        let dir = try StateDirectory()
        let byDelimiter = ["--throttle", "1h", "--key-field", "1", "--delimiter", ",", "--state", dir.state]
        let line: [UInt8] = [0xFF, 0x09, 0x5C, 0x78, 0x41, 0x2C, 0x31, 0x0A]  // "\xff\t\\xA,1\n"
        #expect(try Pace.run(byDelimiter, stdin: line).stdout == line)
        #expect(dir.text.contains("\n\\xff\\t\\\\xA\t0\twindow\t"))
        #expect(try Pace.run(byDelimiter, stdin: line + Array("other,1\n".utf8)).stdout == Array("other,1\n".utf8))

        let json = try StateDirectory()
        let byMember = ["--throttle", "1h", "--key-field", "k", "--state", json.state]
        let event = "{\"k\":\"x\\ny\"}\n"
        #expect(try Pace.run(byMember, stdin: event).stdout == Array(event.utf8))
        #expect(json.text.contains("\nx\\ny\t0\twindow\t"))
        #expect(try Pace.run(byMember, stdin: event).stdout == [])
    }

    // MARK: - Whole states

    @Test("kill -9 during a run leaves the last whole state, which the next run loads")
    func killNine() throws {
        let dir = try StateDirectory()
        // Saves every 20 ms while something changed (the interval's
        // override, for tests only).
        let pace = try PipedPace(flags + ["--state", dir.state],
                                 PipedPace.Options(launcher: ["/usr/bin/env", "PACE_STATE_INTERVAL=20ms"]))
        pace.write("a 1\n")
        #expect(pace.readLine() == "a 1")
        #expect(waitUntil { dir.text.contains("\na\t0\twindow\t") })
        pace.write("a 2\nb 1\n")
        #expect(pace.readLine() == "b 1")
        #expect(waitUntil { dir.text.contains("\nb\t0\twindow\t") })
        kill(pace.pid, SIGKILL)
        _ = pace.finish()
        let text = dir.text
        #expect(text.hasPrefix("pace state 1\n") && text.hasSuffix("\nend\n"))
        #expect(text.contains("\na\t1\twindow\t"))
        let next = try Pace.run(flags + ["--state", dir.state, "--count"], stdin: "a 3\nb 2\nc 1\n")
        #expect(next == PaceResult(stdout: Array("1\tc 1\n".utf8), stderr: "", status: 0))
    }

    @Test("a save that fails is exit 1 with 'pace: FILE: error', and FILE keeps the state saved before")
    func failedSave() throws {
        let dir = try StateDirectory()
        _ = try Pace.run(flags + ["--state", dir.state], stdin: "a 1\n")
        let saved = try #require(dir.bytes)
        // Files of at most 1 KiB (ulimit -f 1; SIGXFSZ ignored, so the
        // write fails with EFBIG): 40 keys' state does not fit, their
        // 240 bytes of output do.
        let keys = (10..<50).map { "k\($0) x\n" }.joined()
        let result = try Pace.run(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", Pace.binary.path]
                                  + flags + ["--state", dir.state],
                                  stdin: Array(keys.utf8), executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.stdout == Array(keys.utf8))
        #expect(result.stderr == "pace: \(dir.state): File too large\n")
        #expect(result.status == 1)
        #expect(dir.bytes == saved)
        #expect(!FileManager.default.fileExists(atPath: dir.state + ".tmp"))
    }

    // The save goes into a new file beside FILE (SPEC): what is at FILE.tmp
    // already, a link someone put there or a FIFO, is neither followed nor
    // waited on (a FIFO held pace in open(2) for ever, signals blocked).
    @Test("the save never writes through a link at FILE.tmp, nor waits on a FIFO there", arguments: [false, true])
    func temporaryIsNew(fifo: Bool) throws {
        let dir = try StateDirectory()
        let victim = dir.url.appendingPathComponent("victim").path
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("precious\n".utf8)))
        if fifo {
            #expect(mkfifo(dir.state + ".tmp", 0o600) == 0)
        } else {
            #expect(symlink(victim, dir.state + ".tmp") == 0)
        }
        let result = try Pace.run(["-k", "5", "10", Pace.binary.path] + flags + ["--state", dir.state], stdin: Array("a 1\n".utf8),
                                  executable: URL(fileURLWithPath: "/usr/bin/timeout"))
        #expect(result == PaceResult(stdout: Array("a 1\n".utf8), stderr: "", status: 0))
        #expect(FileManager.default.contents(atPath: victim) == Data("precious\n".utf8))
        #expect(dir.text.hasPrefix("pace state 1\n") && dir.text.contains("\na\t0\twindow\t"))
        let kind = try FileManager.default.attributesOfItem(atPath: dir.state)[.type] as? FileAttributeType
        #expect(kind == .typeRegular)
        #expect(!FileManager.default.fileExists(atPath: dir.state + ".tmp"))
    }
}
