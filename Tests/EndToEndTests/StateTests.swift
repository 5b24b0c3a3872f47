// `--state FILE`, live, through the real binary on real files: what one run
// saves the next one loads (a window, a count owed, keys of any byte), what
// is refused (other flags, a damaged or foreign file, a file in use), and
// that FILE always holds one whole state (kill -9, a failed save). Runs
// synchronise on output lines, on FILE appearing and on pace's exit; the
// only waits on the clock are downtimes, until a saved window has ended.

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

/// The line a refusal writes, with its hint: the flags for a file saved
/// under others, starting afresh for one no flags would load.
private func refusal(_ path: String, _ why: String, unreadable: Bool = false) -> String {
    let hint = unreadable ? "A --state FILE is pace's own: move or remove this one to start afresh."
        : "Run with the flags the file was saved under ('head -2 FILE' shows them), or remove it to start afresh."
    return """
        pace: '--state' file '\(path)'\(why)
        \(hint)
        See 'pace --help' for more information.

        """
}

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

    // MARK: - Refused files

    @Test("a FILE saved under other flags is refused, and left as it was")
    func otherFlags() throws {
        let dir = try StateDirectory()
        _ = try Pace.run(flags + ["--state", dir.state], stdin: "a 1\n")
        let saved = try #require(dir.bytes)
        let result = try Pace.run(["--throttle", "2h", "--key-field", "1", "--state", dir.state], stdin: "a 2\n")
        #expect(result == PaceResult(stdout: [], stderr: refusal(
            dir.state, " was saved under other flags (--throttle '3600000000000ns' there, '7200000000000ns' here)"),
            status: 2))
        let unkeyed = try Pace.run(["--throttle", "1h", "--state", dir.state], stdin: "a 2\n")
        #expect(unkeyed == PaceResult(stdout: [], stderr: refusal(
            dir.state, " was saved under other flags (--key-field '1' there, absent here)"), status: 2))
        #expect(dir.bytes == saved)
    }

    @Test("a NAME `absent` is not the absence of --key-field: neither run loads the other's FILE")
    func keyFieldNamedAbsent() throws {
        let named = try StateDirectory()
        let byName = ["--throttle", "1h", "--key-field", "absent", "--state", named.state]
        #expect(try Pace.run(byName, stdin: "absent=x 1\n").status == 0)
        #expect(named.text.contains("\t--key-field=\\x61bsent\t"))
        #expect(try Pace.run(["--throttle", "1h", "--state", named.state], stdin: "absent=x 2\n") == PaceResult(
            stdout: [], stderr: refusal(named.state, " was saved under other flags (--key-field 'absent' there, absent here)"),
            status: 2))
        // Read back as the NAME: the same run goes on with x's window.
        #expect(try Pace.run(byName, stdin: "absent=x 3\nabsent=y 1\n").stdout == Array("absent=y 1\n".utf8))

        let unkeyed = try StateDirectory()
        #expect(try Pace.run(["--throttle", "1h", "--state", unkeyed.state], stdin: "a 1\n").status == 0)
        #expect(try Pace.run(["--throttle", "1h", "--key-field", "absent", "--state", unkeyed.state], stdin: "q 2\n")
                == PaceResult(stdout: [], stderr: refusal(
                    unkeyed.state, " was saved under other flags (--key-field absent there, 'absent' here)"), status: 2))
    }

    @Test("the refusal quotes the values that differ: a --delimiter of a space, of a comma")
    func delimiterShownQuoted() throws {
        let dir = try StateDirectory()
        let keyed = ["--throttle", "1h", "--key-field", "1", "--state", dir.state]
        #expect(try Pace.run(keyed + ["--delimiter", " "], stdin: "a b\n").status == 0)
        #expect(try Pace.run(keyed + ["--delimiter", ","], stdin: "a b\n") == PaceResult(
            stdout: [], stderr: refusal(dir.state, " was saved under other flags (--delimiter ' ' there, ',' here)"),
            status: 2))
    }

    @Test("--resolve-after is one of the flags a state records; its lines keep their marks, its episodes stay open")
    func resolveAfter() throws {
        let dir = try StateDirectory()
        let episodes = flags + ["--resolve-after", "1m", "--state", dir.state]
        #expect(try Pace.run(episodes, stdin: "a 1\na 2\n")
                == PaceResult(stdout: Array("first\ta 1\n".utf8), stderr: "", status: 0))
        #expect(try Pace.run(flags + ["--state", dir.state], stdin: "a 3\n") == PaceResult(stdout: [], stderr: refusal(
            dir.state, " was saved under other flags (--resolve-after '60000000000ns' there, absent here)"), status: 2))
        // a's episode is still open (saved, not closed): a owes a 2 and a 3.
        #expect(try Pace.run(episodes + ["--count"], stdin: "a 3\nb 1\n")
                == PaceResult(stdout: Array("1\tfirst\tb 1\n".utf8), stderr: "", status: 0))
        #expect(dir.text.contains("\na\t2\twindow\t"))
    }

    @Test("--then-every is one of the flags a state records: its M, or its absence")
    func thenEvery() throws {
        let dir = try StateDirectory()
        let every3 = flags + ["--then-every", "3", "--state", dir.state]
        #expect(try Pace.run(every3, stdin: "a 1\na 2\n").status == 0)
        #expect(dir.text.contains("--then-every=3"))
        let saved = try #require(dir.bytes)
        #expect(try Pace.run(flags + ["--state", dir.state], stdin: "a 3\n") == PaceResult(stdout: [], stderr: refusal(
            dir.state, " was saved under other flags (--then-every '3' there, absent here)"), status: 2))
        #expect(try Pace.run(flags + ["--then-every", "5", "--state", dir.state], stdin: "a 3\n")
                == PaceResult(stdout: [], stderr: refusal(dir.state, " was saved under other flags (--then-every '3' there, '5' here)"),
                              status: 2))
        #expect(dir.bytes == saved)
        // a owes a 2: with a 3 it has two discards in a row, a 4 is the third.
        #expect(try Pace.run(every3 + ["--count"], stdin: "a 3\na 4\n")
                == PaceResult(stdout: Array("3\ta 4\n".utf8), stderr: "", status: 0))
    }

    @Test("a truncated FILE, random bytes and a foreign file are refused, and left as they were")
    func damagedFiles() throws {
        let dir = try StateDirectory()
        _ = try Pace.run(flags + ["--state", dir.state], stdin: "a 1\nb 1\n")
        let whole = try #require(dir.bytes)
        let cut = Array(whole.dropLast(4))  // "end\n" gone
        let wholeText = String(decoding: whole, as: UTF8.self)
        let aLine = try #require(wholeText.split(separator: "\n").firstIndex { $0.hasPrefix("a\t") }) + 1
        let bLine = try #require(wholeText.split(separator: "\n").firstIndex { $0.hasPrefix("b\t") }) + 1
        var random = SplitMix(seed: 22)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for (bytes, why) in [
            (cut, " is not a whole pace state (it ends before its 'end' line)"),
            (Array(whole.prefix(20)), " is not a whole pace state (it ends before its 'end' line)"),
            (noise, " is not a pace state (its first line is not 'pace state 1')"),
            (Array("#!/bin/sh\necho hi\n".utf8), " is not a pace state (its first line is not 'pace state 1')"),
            (Array("pace state 2\n".utf8), " was saved by another version of pace (its first line is not 'pace state 1')"),
            (Array(wholeText.replacingOccurrences(of: "\nb\t", with: "\nb\\q\t").utf8),
             " is damaged (line \(bLine) is not what a pace state holds)"),
            (Array(wholeText.replacingOccurrences(of: "keys\t2", with: "keys\tx").utf8),
             " is damaged (line 3 is not what a pace state holds)"),
            (Array(wholeText.replacingOccurrences(of: "\nb\t0\twindow\t", with: "\nb\t0\tbucket\t").utf8),
             " is damaged (line \(bLine) is not what a pace state holds)"),
            (Array(wholeText.replacingOccurrences(of: "\nb\t", with: "\na\t").utf8),
             " is damaged (line \(bLine) repeats the key of line \(aLine))"),
        ] as [([UInt8], String)] {
            dir.write(bytes)
            let result = try Pace.run(flags + ["--state", dir.state], stdin: "a 2\n")
            #expect(result == PaceResult(stdout: [], stderr: refusal(dir.state, why, unreadable: true), status: 2))
            #expect(dir.bytes == bytes)
        }
    }

    @Test("a key of several fields whose lengths do not fill it is refused as damaged, not shown")
    func damagedEncodedKey() throws {
        let dir = try StateDirectory()
        let composite = ["--throttle", "1s", "--key-field", "1,2", "--delimiter", ",", "--resolve-after", "1h"]
        _ = try Pace.run(composite + ["--state", dir.state], stdin: "a,bc\n")
        let first = "\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00a"
        #expect(dir.text.contains("\n\(first)\\x02"))
        // The first value's length says 5 where 1 byte follows it.
        dir.write(Array(dir.text.replacingOccurrences(of: first, with: "\\x05" + first.dropFirst(4)).utf8))
        let damaged = try #require(dir.bytes)
        let result = try Pace.run(composite + ["--state", dir.state, "--exec", "true"], stdin: "")
        #expect(result == PaceResult(stdout: [], stderr: refusal(dir.state, " is damaged (line 4 is not what a pace state holds)",
                                                                 unreadable: true), status: 2))
        #expect(dir.bytes == damaged)
    }

    @Test("two concurrent runs on one FILE: the second is refused, and FILE is left as it was")
    func inUse() throws {
        let dir = try StateDirectory()
        _ = try Pace.run(flags + ["--state", dir.state], stdin: "a 1\n")
        let saved = try #require(dir.bytes)
        let running = try PipedPace(flags + ["--state", dir.state])
        running.write("b 1\n")
        #expect(running.readLine() == "b 1")
        let second = try Pace.run(flags + ["--state", dir.state], stdin: "c 1\n")
        #expect(second == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(dir.state)' is in use by another pace (it holds '\(dir.state).lock')
            Each running pace needs a --state file of its own.
            See 'pace --help' for more information.

            """, status: 2))
        #expect(dir.bytes == saved)
        let end = running.finish()
        #expect(end.status == 0)
        #expect(dir.text.contains("\nb\t0\twindow\t"))
    }

    @Test("--state is refused with --replay, as the input, stdout's file or the --record file")
    func refusedNames() throws {
        let dir = try StateDirectory()
        #expect(try Pace.run(["--throttle", "1s", "--replay", "--state", dir.state], stdin: "0ms a\n")
                == PaceResult(stdout: [], stderr: "pace: '--state' is for live mode and cannot be used with --replay\n"
                              + usageHintTail, status: 2))
        #expect(try Pace.run(["--throttle", "1s", "--state", ""], stdin: "a\n")
                == PaceResult(stdout: [], stderr: "pace: --state: the file name is empty\n" + usageHintTail, status: 2))
        let input = try Pace.file(Array("a\n".utf8))
        #expect(try Pace.run(["--throttle", "1s", "--state", input, input])
                == PaceResult(stdout: [], stderr: "pace: '--state' file '\(input)' is the input file (a save would replace what pace reads)\n"
                              + usageHintTail, status: 2))
        #expect(try Pace.run(["--throttle", "1s", "--state", dir.state, "--record", dir.state], stdin: "a\n")
                == PaceResult(stdout: [], stderr: "pace: '--state' file '\(dir.state)' is also the '--record' file\n"
                              + usageHintTail, status: 2))
        #expect(dir.bytes == nil)
        let shell = try Pace.run(["-c", "exec \"$0\" --throttle 1s --state \"$1\" > \"$1\"", Pace.binary.path, dir.state],
                                 stdin: Array("a\n".utf8), executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(shell == PaceResult(stdout: [], stderr: "pace: '--state' file '\(dir.state)' is stdout's file (a save would replace the output)\n"
                                    + usageHintTail, status: 2))
    }

    @Test("a --state FILE not made yet is refused when another flag's file names the same place another way")
    func refusedFutureNames() throws {
        let dir = try StateDirectory()
        let folder = dir.url.path
        for (flag, other) in [("--dropped", "\(folder)/./keys.state"), ("--record", "\(folder)/../\(dir.url.lastPathComponent)/keys.state"),
                              ("--metrics", "\(folder)//keys.state")] {
            #expect(try Pace.run(["--throttle", "1s", "--state", dir.state, flag, other], stdin: "a\nb\n")
                    == PaceResult(stdout: [], stderr: "pace: '--state' file '\(dir.state)' is also the '\(flag)' file\n"
                                  + usageHintTail, status: 2))
        }
        #expect(dir.bytes == nil)
        // Another name in the same directory is another file.
        let result = try Pace.run(["--throttle", "1s", "--state", dir.state, "--dropped", "\(folder)/./dropped"], stdin: "a\nb\n")
        #expect(result == PaceResult(stdout: Array("a\n".utf8), stderr: "", status: 0))
        #expect(FileManager.default.contents(atPath: "\(folder)/dropped") == Data("b\n".utf8))
        #expect(dir.text.hasPrefix("pace state 1\n"))
    }

    @Test("a --state FILE that is a FIFO is not a pace state, and pace neither waits to open it nor makes its lock")
    func fifoState() throws {
        let dir = try StateDirectory()
        #expect(mkfifo(dir.state, 0o600) == 0)
        let result = try Pace.run(["--throttle", "1s", "--state", dir.state], stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: '--state' file '\(dir.state)' is not a pace state (it is not a regular file)
            A --state FILE is pace's own: move or remove this one to start afresh.
            See 'pace --help' for more information.

            """, status: 2))
        #expect(access(dir.state + ".lock", F_OK) != 0)
    }

    @Test("a directory pace cannot write in is refused")
    func unwritableDirectory() throws {
        // /proc refuses new files to everyone, root included.
        let result = try Pace.run(["--throttle", "1s", "--state", "/proc/pace.state"], stdin: "a\n")
        #expect(result.status == 2)
        #expect(result.stdout == [])
        #expect(result.stderr.hasPrefix("pace: '--state' file '/proc/pace.state': pace cannot write in its directory ("))
    }

    @Test("a lock that cannot be opened is refused by its own name")
    func lockNotOpenable() throws {
        let dir = try StateDirectory()
        try FileManager.default.createDirectory(atPath: dir.state + ".lock", withIntermediateDirectories: false)
        let result = try Pace.run(["--throttle", "1s", "--state", dir.state], stdin: "a\n")
        #expect(result.status == 2)
        #expect(result.stdout == [])
        #expect(result.stderr.hasPrefix("pace: '--state' file '\(dir.state)': pace cannot open its lock '\(dir.state).lock' (Is a directory)\n"))
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

/// Random bytes for the test that feeds pace a file of them.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
