// `--state FILE`, live, through the real binary on real files: what is
// refused, and left as it was: a FILE saved under other flags, a damaged or
// foreign one, one in use by another pace, one that is also another file of
// the run, a FIFO, a directory pace cannot write in, a lock it cannot open.

import Foundation
import Glibc
import Testing

// The same flags as StateTests' (and StateLinkTests'): each file has its own.
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

extension StateEndToEndTests {
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
