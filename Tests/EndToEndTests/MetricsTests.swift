// --metrics FILE, end to end: the file read by a real Prometheus parser
// (Python's prometheus_client, which .ci/run installs; without it these
// tests say so and skip), its values against --stats for the same run, a
// live run's file read while pace runs, and the usage and write errors.

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

/// The times a file was written whole (replaced: a new inode, or a new
/// mtime, not empty), as the kernel stamped them, seen by a thread that
/// looks all the time.
private final class RewriteStamps: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var seen: [timespec] = []
    private var watching = true
    private var thread: Thread?

    init(_ path: String) { self.path = path }

    var stamps: [timespec] { lock.withLock { seen } }

    func start() {
        let thread = Thread { [self] in
            var last: (ino_t, Int, Int)?
            while lock.withLock({ watching }) {
                var info = stat()
                // The empty file made at the start is no rewrite.
                guard stat(path, &info) == 0, info.st_size > 0 else { continue }
                let now = (info.st_ino, info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
                if last.map({ $0 != now }) ?? true {
                    last = now
                    lock.withLock { seen.append(info.st_mtim) }
                }
            }
        }
        self.thread = thread
        thread.start()
    }

    func stop() { lock.withLock { watching = false } }
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

    @Test("live: the file is there from the start and follows the run while it goes on, then holds the end")
    func liveFollows() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let pace = try PipedPace(["--debounce", "1h", "--metrics", path])
        func value(_ name: String) -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
        }
        // Before any line: a whole file of zeros.
        #expect(waitUntil { value("pace_lines_read_total") == "0" })
        #expect(value("pace_start_time_seconds") != nil)
        pace.write("a\n")
        // One line read, pending under the debounce: read, not yet decided.
        #expect(waitUntil { value("pace_lines_read_total") == "1" })
        #expect(value("pace_lines_pending") == "1" && value("pace_lines_emitted_total") == "0")
        #expect(value("pace_keys_active") == "1")
        pace.write("b\n")
        // The next rewrite comes a second after the last at most, with both.
        #expect(waitUntil { value("pace_lines_read_total") == "2" })
        #expect(value("pace_lines_pending") == "1" && value("pace_lines_discarded_total") == "1")
        let (output, errors, status) = pace.finish()
        #expect(output == bytes("b\n") && errors == "" && status == 0)
        #expect(value("pace_lines_emitted_total") == "1" && value("pace_lines_pending") == "0")
        // Only the file itself is left: no temporary file behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: String(decoding: dir.path, as: UTF8.self)) == ["m.prom"])
    }

    @Test("live: a second at least between two rewrites, though stdout stalled the run after a read")
    func liveRewritesASecondApart() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        var options = PipedPace.Options()
        options.stdinPipeSize = 1 << 20
        // A key a line: each passes.
        let pace = try PipedPace(["--throttle", "1h", "--key-field", "2", "--metrics", path], options)
        // Every rewrite's time, as the kernel stamped the new file.
        let watcher = RewriteStamps(path)
        watcher.start()
        func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
        func realNow() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_REALTIME, &t)
            return seconds(t)
        }
        func lastStamp() -> Double? { watcher.stamps.last.map(seconds) }
        #expect(waitUntil { lastStamp() != nil })
        // A read more than a second after the first write; its lines fill
        // stdout, which stalls the run for a while after that read.
        #expect(waitUntil { realNow() - (lastStamp() ?? realNow()) > 1.05 })
        let burst = (0..<2_000).map { "line \($0) " + String(repeating: "x", count: 90) + "\n" }.joined()
        pace.write(burst)
        #expect(pace.waitUntilBlockedWriting() != nil)
        let stalled = realNow()
        #expect(waitUntil { realNow() - stalled > 0.6 })
        // The run goes on; then lines now and then, each a change to show.
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        func drain() {
            var entry = pollfd(fd: pace.output, events: Int16(POLLIN), revents: 0)
            while poll(&entry, 1, 0) > 0 {
                let n = read(pace.output, &chunk, chunk.count)
                if n <= 0 { return }
                received += chunk[..<n].count { $0 == 0x0A }
            }
        }
        #expect(waitUntil { drain(); return received == 2_000 })
        for k in 0..<6 {
            pace.write("more m\(k)\n")
            #expect(waitUntil { drain(); return received == 2_001 + k })
            let written = watcher.stamps.count
            _ = waitUntil(timeout: 0.4) { watcher.stamps.count > written }
        }
        let end = pace.finish()
        #expect(end.status == 0)
        watcher.stop()
        // The last write, at exit, may come at any time.
        let times = watcher.stamps.map(seconds).dropLast()
        // The kernel's file times are coarse (a tick): 10 ms of slack.
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(times.count >= 3)
        #expect(gaps.allSatisfy { $0 >= 0.99 }, "rewrites \(gaps) s apart")
    }

    @Test("replay waiting on a slow pipe: the file follows what was read, without more input")
    func replayFollowsWhileWaiting() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.prom")), as: UTF8.self)
        let pace = try PipedPace(["--throttle", "1h", "--replay", "--time-format", "unix", "--metrics", path])
        func value(_ name: String) -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
        }
        #expect(waitUntil { value("pace_lines_read_total") == "0" })
        // Within a second of the first write: the rewrite is due while the
        // replay waits for its next line, which does not come.
        pace.write("1 a\n2 b\n")
        #expect(waitUntil { value("pace_lines_read_total") == "2" })
        #expect(value("pace_lines_emitted_total") == "1" && value("pace_lines_discarded_total") == "1")
        let (output, errors, status) = pace.finish()
        #expect(output == bytes("1 a\n") && errors == "" && status == 0)
    }

    @Test("a FIFO as --metrics FILE is never waited on: without a reader, or full, the run goes on; a reader that has it open gets each snapshot, the last at exit")
    func fifo() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = String(decoding: dir.file(bytes("m.fifo")), as: UTF8.self)
        #expect(mkfifo(path, 0o600) == 0)
        let alone = try PipedPace(["--throttle", "1s", "--metrics", path])
        alone.write("a\nb\n")
        let (output, errors, status) = alone.finish(timeout: 10)
        #expect(output == bytes("a\n") && errors == "" && status == 0)

        let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let watched = try PipedPace(["--throttle", "1s", "--metrics", path])
        watched.write("a\nb\n")
        let end = watched.finish(timeout: 10)
        #expect(end.output == bytes("a\n") && end.errors == "" && end.status == 0)
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let n = read(reader, &chunk, chunk.count), n > 0 { text += chunk[..<n] }
        let snapshots = String(decoding: text, as: UTF8.self)
        // The first snapshot, at the start, and the last, at exit.
        #expect(snapshots.hasPrefix("# HELP pace_lines_read_total "))
        #expect(snapshots.contains("\npace_lines_read_total 0\n") && snapshots.contains("\npace_lines_read_total 2\n"))
        var info = stat()
        #expect(stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)

        // A reader that has the FIFO open but does not read, and it is full:
        // each snapshot is skipped, the run goes on.
        let filler = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(filler >= 0)
        defer { close(filler) }
        _ = fcntl(filler, 1031 /* F_SETPIPE_SZ */, 4096)
        let fill = [UInt8](repeating: 0x23, count: 65536)
        while write(filler, fill, fill.count) > 0 {}
        #expect(errno == EAGAIN)
        let stalled = try PipedPace(["--throttle", "1s", "--metrics", path])
        stalled.write("a\nb\n")
        let last = stalled.finish(timeout: 10)
        #expect(last.output == bytes("a\n") && last.errors == "" && last.status == 0)
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
