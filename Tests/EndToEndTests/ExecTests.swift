// `--exec` through the built binary, in replay mode: the commands are small
// sh scripts that append what they saw to files in a scratch directory, so
// the tests compare bytes, never timings. The signal test synchronises on a
// FIFO the command writes to, and on a gate FIFO it blocks on.

import Foundation
import Testing
import Glibc

/// A scratch directory for the commands' files.
private struct Scratch {
    let dir: String

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: dir) }

    func read(_ name: String) -> [UInt8] {
        (try? Array(Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))) ?? []
    }

    func text(_ name: String) -> String { String(decoding: read(name), as: UTF8.self) }

    /// The pids the commands wrote to `pids`: none may still exist.
    func expectNoneLeft(sourceLocation: SourceLocation = #_sourceLocation) {
        for pid in text("pids").split(separator: "\n").compactMap({ pid_t($0) }) {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "command \(pid) outlived pace", sourceLocation: sourceLocation)
        }
    }
}

@Suite("--exec, end to end")
struct ExecEndToEndTests {
    @Test("a command that begins with '-' is the shell's command, not its options (sh -c -- CMD)")
    func commandBeginningWithADash() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = "-no-such-command 2>/dev/null || echo \"$PACE_LINE\" >> '\(s.dir)/ran'"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--exec", command],
                                  stdin: "0 a\n5 b\n")
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(s.text("ran") == "0 a\n5 b\n")
    }

    @Test("replay runs a command per emitted line, in output order, with the line on stdin and PACE_* set")
    func replayOrderAndEnvironment() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = """
            echo $$ >> '\(s.dir)/pids'
            printf '%s|%s|%s|%s\\n' "$PACE_LINE" "$PACE_KEY" "$PACE_TIME" "$PACE_COUNT" >> '\(s.dir)/env'
            cat >> '\(s.dir)/stdin'
            """
        // Debounce 1s per key (field 2): b's line is due before a's; a's
        // "three" replaced "one", so its PACE_COUNT is 2 (as --count counts).
        let input = "0 a one\n0.5 b two\n0.7 a three\n5 a four\n"
        let result = try Pace.run(["--debounce", "1s", "--replay", "--time-format", "unix", "--key-field", "2", "--exec", command], stdin: input)
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(s.text("env") == """
            0.5 b two|b|1.500000|1
            0.7 a three|a|1.700000|2
            5 a four|a|6.000000|1

            """)
        #expect(s.text("stdin") == "0.5 b two\n0.7 a three\n5 a four\n")
        s.expectNoneLeft()
    }

    @Test("invalid UTF-8 and a NUL: stdin gets the bytes, PACE_LINE stops at the NUL")
    func bytes() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = "printf %s \"$PACE_LINE\" > '\(s.dir)/env'; cat > '\(s.dir)/stdin'"
        let line: [UInt8] = Array("1 x".utf8) + [0xFF, 0xC3, 0x00, 0x41]
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--exec", command], stdin: line + [0x0A])
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(s.read("env") == Array("1 x".utf8) + [0xFF, 0xC3])
        #expect(s.read("stdin") == line + [0x0A])
    }

    @Test("--emit-time's prefix is not passed: the environment carries the time")
    func emitTime() throws {
        let s = try Scratch()
        defer { s.remove() }
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--emit-time", "--exec",
                                   "cat >> '\(s.dir)/stdin'"], stdin: "1 a\n3 b\n")
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(s.text("stdin") == "1 a\n3 b\n")
    }

    @Test("a failing command is reported, pace goes on, and exits 123; --stats counts it")
    func failure() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = "echo \"$PACE_LINE\" >> '\(s.dir)/ran'; case \"$PACE_LINE\" in *fail*) exit 3 ;; esac"
        let result = try Pace.run(["--throttle", "1ns", "--replay", "--time-format", "unix", "--stats", "--exec", command],
                                  stdin: "1 ok\n2 fail\n3 ok\n")
        #expect(result.status == 123)
        #expect(result.stdout == [])
        #expect(result.stderr.hasPrefix("pace: line 2: command exited with status 3\npace: stats:\n"))
        #expect(result.stderr.contains("""
              commands run:        3
              commands failed:     1
              commands restarted:  0
              commands not run:    0

            """))
        #expect(s.text("ran") == "1 ok\n2 fail\n3 ok\n")
    }

    @Test("a bad timestamp's exit 1 wins over a failed command's 123")
    func precedence() throws {
        let result = try Pace.run(["--throttle", "1ns", "--replay", "--time-format", "unix", "--exec", "exit 1"], stdin: "1 a\nnope\n")
        #expect(result == PaceResult(stdout: [], stderr: """
            pace: line 1: command exited with status 1
            pace: line 2: timestamp does not match --time-format unix

            """, status: 1))
    }

    @Test("a line passed by --on-bad-time pass runs its command too, at the current virtual time")
    func badTimePass() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = "printf '%s|%s\\n' \"$PACE_LINE\" \"$PACE_TIME\" >> '\(s.dir)/env'"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--on-bad-time", "pass",
                                   "--exec", command], stdin: "5 a\nno time\n")
        #expect(result == PaceResult(stdout: [], stderr: "", status: 0))
        #expect(s.text("env") == "5 a|5.000000\nno time|5.000000\n")
    }

    @Test("SIGINT or SIGTERM during a command: it gets SIGTERM, later lines never run, pace exits 130 or 143",
          arguments: [SIGINT, SIGTERM])
    func signal(_ number: Int32) throws {
        let s = try Scratch()
        defer { s.remove() }
        mkfifo(s.dir + "/events", 0o600)
        mkfifo(s.dir + "/gate", 0o600)
        // Opened before pace starts, so the command's write never blocks.
        let events = open(s.dir + "/events", O_RDONLY | O_NONBLOCK)
        let keepOpen = open(s.dir + "/events", O_WRONLY)
        defer { close(events); close(keepOpen) }
        let command = """
            echo $$ >> '\(s.dir)/pids'
            trap 'echo "term $PACE_LINE" > '\(s.dir)/events'; exit 0' TERM
            echo "start $PACE_LINE" > '\(s.dir)/events'
            { read x < '\(s.dir)/gate'; } 2>/dev/null
            """
        let input = try Pace.file(Array("1 a\n2 b\n3 c\n".utf8))
        let process = Process()
        process.executableURL = Pace.binary
        process.arguments = ["--throttle", "1ns", "--replay", "--time-format", "unix", "--stats", "--exec", command, input]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(readLine(events) == "start 1 a")
        kill(process.processIdentifier, number)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + number)
        #expect(readLine(events) == "term 1 a")
        #expect(stderr.contains("  commands run:        1\n"))
        #expect(stderr.contains("  commands not run:    2\n"))
        #expect(!stderr.contains("command exited"))
        s.expectNoneLeft()
    }

    @Test("replay: a second signal sends SIGKILL at once to a command that ignores SIGTERM, and says how many lines did not run")
    func secondSignal() throws {
        let s = try Scratch()
        defer { s.remove() }
        let command = """
            echo $$ >> '\(s.dir)/pids'
            trap 'echo term' TERM
            echo start
            while :; do { read x < '\(s.dir)/gate'; } 2>/dev/null; done
            """
        // Never opened for writing: the command waits in the shell itself.
        mkfifo(s.dir + "/gate", 0o600)
        var options = PipedPace.Options()
        options.prefill = Array("1 a\n2 b\n".utf8)
        options.closeStdin = true
        let pace = try PipedPace(["--throttle", "1ns", "--replay", "--time-format", "unix", "--kill-after", "1h",
                                  "--exec", command], options)
        #expect(pace.readLine() == "start")
        #expect(pace.send(SIGTERM))
        #expect(pace.readLine() == "term")
        // An hour's --kill-after: only the second signal ends it in time.
        #expect(pace.send(SIGTERM))
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        // Line 2 was read with line 1 and never ran.
        #expect(errors == "pace: interrupted: 1 line not run\n")
        #expect(status == 143)
        s.expectNoneLeft()
    }

    @Test("usage errors: a modifier without --exec, a bad value", arguments: [
        (["--throttle", "1s", "--jobs", "2"], "'--jobs' only applies with --exec"),
        (["--throttle", "1s", "--exec", "true", "--on-busy", "later"], "invalid value 'later' for '--on-busy' (choose queue, drop or restart)"),
    ] as [([String], String)])
    func usage(arguments: [String], message: String) throws {
        let result = try Pace.run(arguments, stdin: "a\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: \(message)\n" + usageHintTail, status: 2))
    }
}

/// The next line from a non-blocking FIFO, waiting up to 20 s for it.
private func readLine(_ fd: Int32) -> String? {
    var line: [UInt8] = []
    let giveUp = Date().addingTimeInterval(20)
    while Date() < giveUp {
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)
        if n == 1 {
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
            continue
        }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, 1_000)
    }
    return nil
}
