// --metrics FILE, end to end: the file read by a real Prometheus parser
// (Python's prometheus_client, which .ci/run installs; without it these
// tests say so and skip), its values against --stats for the same run, and
// the usage and write errors. The file while pace runs is
// MetricsRewriteTests'.

import Foundation
import Glibc
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Python 3 with prometheus_client, or nil.
private let prometheusPython: String? = {
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"] + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        .split(separator: ":").map { "\($0)/python3" }
    return python.first { path in
        guard FileManager.default.isExecutableFile(atPath: path) else { return false }
        return (try? runTool(path, ["-c", "import prometheus_client.parser"]))?.status == 0
    }
}()

private func runTool(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The file as prometheus_client's text parser reads it: each sample as
/// `name type value`, in order; a family without its HELP fails the parse.
private func parsedMetrics(_ path: String) throws -> [String] {
    let script = """
        import sys
        from prometheus_client.parser import text_string_to_metric_families
        text = open(sys.argv[1]).read()
        for family in text_string_to_metric_families(text):
            assert family.documentation, family.name + " has no HELP"
            for sample in family.samples:
                assert not sample.labels, sample.name + " has labels"
                print(sample.name, family.type, sample.value)
        """
    let result = try runTool(prometheusPython!, ["-c", script, path])
    guard result.status == 0 else { throw ParseFailure(description: result.output) }
    return result.output.split(separator: "\n").map(String.init)
}

private struct ParseFailure: Error, CustomStringConvertible { var description: String }

/// The `--stats` row `name`'s number.
private func statsRow(_ stderr: String, _ name: String) -> String? {
    stderr.split(separator: "\n").first { $0.hasPrefix("  \(name):") }
        .map { String($0.split(separator: " ").last!) }
}

@Suite("--metrics, end to end")
struct MetricsTests {
    /// Seven lines: two keys throttled, an empty line (skipped in replay),
    /// a bad timestamp (skipped), a clamped one.
    static let log = "1 a\n2 b\n\n3 a\nx bad\n4 a\n3.5 a\n"

    // The snapshot goes into a new file (FILE.<pid>.tmp) renamed over
    // FILE: a link someone put at that name is not written through.
    @Test("the rewrite never writes through a link at its temporary name")
    func temporaryIsNew() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let metrics = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let victim = String(decoding: dir.file(bytes("victim")), as: UTF8.self)
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("precious\n".utf8)))
        // The shell's pid is pace's after exec.
        let result = try Pace.run(["-c", "ln -s \"$1\" \"$2.$$.tmp\" && exec \"$0\" --throttle 1s --replay --time-format unix --metrics \"$2\"",
                                   Pace.binary.path, victim, metrics],
                                  stdin: Array("1 a\n".utf8), executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.stdoutText == "1 a\n")
        #expect(result.status == 0)
        #expect(FileManager.default.contents(atPath: victim) == Data("precious\n".utf8))
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(text.contains("pace_lines_read_total 1\n"))
        let leftOver = try FileManager.default.contentsOfDirectory(atPath: String(decoding: dir.path, as: UTF8.self)).filter { $0.hasSuffix(".tmp") }
        #expect(leftOver == [])
    }

    @Test("replay: the file parses as Prometheus text, with SPEC's names and the values of --stats",
          .enabled(if: prometheusPython != nil, "python3 with prometheus_client is not installed (.ci/run installs it)"))
    func replayValues() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let metrics = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let dropped = String(decoding: dir.file(bytes("d")), as: UTF8.self)
        let result = try Pace.run(["--throttle", "2s", "--replay", "--time-format", "unix", "--on-bad-time", "skip",
                                   "--key-field", "2", "--stats", "--dropped", dropped, "--metrics", metrics],
                                  stdin: Self.log)
        #expect(result.stdoutText == "1 a\n2 b\n3 a\n")
        #expect(result.status == 0)
        // 1 a, 2 b, 3 a out; 4 a and 3.5 a (clamped to 4) dropped; the
        // empty line and x bad skipped: 7 read, 3 emitted, 4 discarded.
        let parsed = try parsedMetrics(metrics)
        #expect(Array(parsed.dropLast()) == [
            "pace_lines_read_total counter 7",
            "pace_lines_emitted_total counter 3",
            "pace_lines_discarded_total counter 4",
            "pace_lines_bad_time_total counter 1",
            "pace_lines_exempt_total counter 0",
            "pace_keys_active gauge 0",
            "pace_lines_pending gauge 0",
        ])
        // The start time is this run's, in seconds since the epoch.
        let startSample = parsed.last?.split(separator: " ") ?? []
        #expect(startSample.prefix(2) == ["pace_start_time_seconds", "gauge"])
        let start = startSample.last.flatMap { Double($0) } ?? 0
        #expect(abs(start - Date().timeIntervalSince1970) < 60)
        // Against --stats: emitted, and the discarded are its dropped (SPEC):
        // every line --dropped got, the skipped ones (bad-time, empty) too.
        #expect(statsRow(result.stderr, "emitted") == "3")
        let rows = ["dropped", "empty lines", "bad-time lines"].map { statsRow(result.stderr, $0).flatMap { Int($0) } ?? -1 }
        #expect(rows == [4, 1, 1])
        let droppedLines = try String(contentsOfFile: dropped, encoding: .utf8)
        #expect(droppedLines == "\nx bad\n4 a\n3.5 a\n")
    }

    @Test("exempt lines are read, emitted and exempt, live and in replay",
          .enabled(if: prometheusPython != nil, "python3 with prometheus_client is not installed (.ci/run installs it)"),
          arguments: [false, true])
    func exemptLines(replay: Bool) throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let metrics = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        // k's first line passes, its second is dropped; the two lines marked
        // e pass outside the policy.
        let input = replay ? "1 k a\n1.5 k b\n2 j e\n3 y e\n" : "k a\nk b\nj e\ny e\n"
        let timed = replay ? ["--replay", "--time-format", "unix", "--key-field", "2", "--exempt", "3=e"]
            : ["--key-field", "1", "--exempt", "2=e"]
        let result = try Pace.run(["--throttle", "1h", "--stats", "--metrics", metrics] + timed, stdin: input)
        #expect(result.status == 0)
        #expect(result.stdoutText == (replay ? "1 k a\n2 j e\n3 y e\n" : "k a\nj e\ny e\n"))
        let parsed = try parsedMetrics(metrics)
        #expect(Array(parsed.prefix(5)) == [
            "pace_lines_read_total counter 4",
            "pace_lines_emitted_total counter 3",
            "pace_lines_discarded_total counter 1",
            "pace_lines_bad_time_total counter 0",
            "pace_lines_exempt_total counter 2",
        ])
        #expect(statsRow(result.stderr, "exempt lines") == "2" && statsRow(result.stderr, "dropped") == "1")
    }

    @Test("--exec adds the command counters; a failed command counts as started and failed",
          .enabled(if: prometheusPython != nil, "python3 with prometheus_client is not installed (.ci/run installs it)"))
    func execCounters() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let metrics = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--stats", "--metrics", metrics,
                                   "--exec", "test \"$PACE_LINE\" != '3 c'"], stdin: "1 a\n1.5 b\n3 c\n")
        #expect(result.status == 123)
        let parsed = try parsedMetrics(metrics)
        #expect(parsed.contains("pace_commands_started_total counter 2"))
        #expect(parsed.contains("pace_commands_failed_total counter 1"))
        #expect(parsed.contains("pace_lines_emitted_total counter 2"))
        #expect(parsed.contains("pace_lines_discarded_total counter 1"))
        #expect(statsRow(result.stderr, "commands run") == "2" && statsRow(result.stderr, "commands failed") == "1")
    }

    @Test("--resolve-after adds the episode counter and gauge, as --stats counts them; without it they are not there",
          .enabled(if: prometheusPython != nil, "python3 with prometheus_client is not installed (.ci/run installs it)"))
    func episodeFigures() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let metrics = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let arguments = ["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2", "--stats",
                         "--metrics", metrics]
        // a: first at 1 (1.5 dropped), resolved at 3.5; b: first at 2, resolved at 4.
        let result = try Pace.run(arguments + ["--resolve-after", "2s"], stdin: "1 a\n1.5 a\n2 b\n")
        #expect(result.status == 0)
        let parsed = try parsedMetrics(metrics)
        #expect(parsed.contains("pace_episodes_resolved_total counter 2"))
        #expect(parsed.contains("pace_episodes_open gauge 0"))
        #expect(statsRow(result.stderr, "episodes resolved") == "2")
        let plain = try Pace.run(arguments, stdin: "1 a\n1.5 a\n2 b\n")
        #expect(plain.status == 0)
        #expect(try parsedMetrics(metrics).allSatisfy { !$0.hasPrefix("pace_episodes") })
    }

    @Test("a --metrics file that cannot be created, is the input, stdout's file or the --dropped file: exit 2")
    func usageErrors() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let missing = dir.file(bytes("no/such/m.prom"))
        let cannot = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--metrics"), missing], stdin: bytes("a\n"))
        #expect(cannot == RawResult(stdout: [], stderr: bytes("pace: ") + missing + bytes(": No such file or directory\n")
                                    + bytes(usageHintTail), status: 2))
        try dir.write(bytes("1 a\n"), to: bytes("in"))
        let input = dir.file(bytes("in"))
        let same = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--metrics"), input, input])
        #expect(same == RawResult(stdout: [], stderr: bytes("pace: '--metrics' file '") + input
                                  + bytes("' is the input file (pace would overwrite what it reads)\n") + bytes(usageHintTail),
                                  status: 2))
        #expect(dir.read(bytes("in")) == bytes("1 a\n"))
        let o = dir.file(bytes("o"))
        let stdoutFile = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--metrics"), o], stdin: bytes("a\n"), stdout: o)
        #expect(stdoutFile == RawResult(stdout: [], stderr: bytes("pace: '--metrics' file '") + o
                                        + bytes("' is stdout's file (lines written to both would overwrite each other)\n")
                                        + bytes(usageHintTail), status: 2))
        let d = dir.file(bytes("d"))
        let both = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--dropped"), d, bytes("--metrics"), d],
                                  stdin: bytes("a\n"))
        #expect(both == RawResult(stdout: [], stderr: bytes("pace: '--metrics' file '") + d
                                  + bytes("' is also the '--dropped' file\n") + bytes(usageHintTail), status: 2))
        let empty = try Pace.run(["--throttle", "1s", "--metrics", ""])
        #expect(empty.status == 2 && empty.stderr.hasPrefix("pace: --metrics: the file name is empty\n"))
    }

    @Test("a write error on the --metrics file: pace: <file>: <error>, exit 1; a device is written, never replaced")
    func writeError() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--metrics", "/dev/full"],
                                  stdin: "1 a\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: /dev/full: No space left on device\n", status: 1))
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }
}
