// SIGHUP and SIGQUIT act as SIGTERM does (SPEC: Semantics): pending lines
// are emitted, then pace exits 129 or 131; so do SIGUSR2, SIGALRM and the
// other signals whose default would end pace (docs/CHOICES.md); a second
// terminating signal of any kind ends it at once with the first one's status. And a signal that
// comes before the run begins (here: while pace waits in open(2) for a FIFO's
// writer) ends pace with that status, not by the default action (death, or
// a core dump for SIGQUIT). Synchronised on what pace shows: the input pipe
// drained, a full stdout pipe, the kernel's wait channel.

import Foundation
import Glibc
import Testing

/// Three 50,001-byte lines on keys k1 to k3 and a short one on k4: under
/// `--debounce 10s --key-field 1` all are pending at end of input, and the
/// second one's write blocks on a 64 KiB pipe nobody reads, with 3 lines
/// not written.
private let blockingLines = ["k1 ", "k2 ", "k3 "].map { $0 + String(repeating: "x", count: 50_000 - 3) + "\n" }.joined()
    + "k4 small\n"

/// True once pace sleeps in open(2) of a FIFO until a writer comes: the
/// kernel shows where (10 s at most).
/// Waits until pace's run waits in ppoll (its input FIFO has had no writer
/// yet): /proc/PID/wchan names the poll.
private func waitUntilPolling(_ pace: PipedPace) -> Bool {
    waitUntil { (try? String(contentsOfFile: "/proc/\(pace.pid)/wchan", encoding: .utf8))?.contains("poll") == true }
}

@Suite("SIGHUP, SIGQUIT, and signals at start", .serialized)
struct TerminatingSignalTests {
    @Test("SIGHUP, SIGQUIT and the other signals that would end pace end input as SIGTERM does: the pending line is emitted, exit 128 + N",
          arguments: [(SIGHUP, 129), (SIGQUIT, 131), (SIGTERM, 143), (SIGINT, 130), (SIGUSR2, 140), (SIGALRM, 142),
                      (SIGVTALRM, 154), (SIGPROF, 155), (SIGIO, 157), (SIGPWR, 158), (SIGSTKFLT, 144), (SIGXCPU, 152)]
            as [(Int32, Int32)])
    func endInput(signal: Int32, status: Int32) throws {
        let pace = try PipedPace(["--debounce", "1h"])
        pace.write("pending\n")
        #expect(pace.waitUntilInputDrained())
        #expect(pace.send(signal))
        let end = pace.finish(closingInput: false)
        #expect(String(decoding: end.output, as: UTF8.self) == "pending\n")
        #expect(end.errors == "")
        #expect(end.status == status)
    }

    @Test("a second terminating signal of another kind ends pace at once, with the first one's status",
          arguments: [(SIGHUP, SIGQUIT, 129), (SIGQUIT, SIGINT, 131), (SIGTERM, SIGHUP, 143)] as [(Int32, Int32, Int32)])
    func secondSignal(first: Int32, second: Int32, status: Int32) throws {
        let pace = try PipedPace(["--debounce", "10s", "--key-field", "1"],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(blockingLines.utf8), closeStdin: true))
        let held = try #require(pace.waitUntilBlockedWriting())
        #expect(pace.send(first))
        #expect(pace.send(second))
        let end = pace.finish(timeout: 5)
        #expect(end.status == status)
        #expect(end.errors == "pace: interrupted: 3 lines not written\n")
        let written = end.output == Array(blockingLines.utf8.prefix(Int(held)))
        #expect(written)
    }

    @Test("a second signal still writes out the lines --dropped got in replay, which buffers them")
    func secondSignalKeepsDropped() throws {
        // Two lines a millisecond under a 1 ms throttle: the second of each
        // pair is discarded. From a file, so replay never stops to wait for
        // input (where it writes --dropped out): stdout's writes block in
        // the middle of the run, with discards still in --dropped's buffer.
        let input = (0..<40_000).map { index -> String in
            let text = "\(index * 500)us line \(index) "
            return text + String(repeating: "x", count: 99 - text.utf8.count) + "\n"
        }.joined()
        let directory = NSTemporaryDirectory() + "pace-second-dropped-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/in", contents: Data(input.utf8)))
        let file = open(directory + "/in", O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        let pace = try PipedPace(["--replay", "--throttle", "1ms", "--stats", "--dropped", directory + "/d"],
                                 .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting() != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        let dropped = (try? String(contentsOfFile: directory + "/d", encoding: .utf8)) ?? ""
        let lines = dropped.split(separator: "\n")
        // Every odd line, from the first, as many as --stats counts.
        #expect(lines.count > 0)
        #expect(lines.enumerated().allSatisfy { $1.hasPrefix("\($0 * 1000 + 500)us line \($0 * 2 + 1) ") })
        let counted = end.errors.split(separator: "\n").first { $0.hasPrefix("  dropped:") }
        #expect(counted.map { $0.split(separator: " ").last.map(String.init) } == "\(lines.count)")
    }

    @Test("a second signal while --dropped's FIFO is stalled: stdout, a file, still gets its lines, and the lines --dropped did not get are counted")
    func secondSignalWhileDroppedStalls() throws {
        // 1001 lines pass (each a new key, then the first `same`); the
        // 19,999 `same` lines after them are discarded into a FIFO nobody
        // reads, which stalls replay long before stdout's buffer is full.
        let passing = (0..<1_000).map { "1us k\($0) " } + ["2us same "]
        let lines = (passing + Array(repeating: "2us same ", count: 19_999)).map { text in
            text + String(repeating: "x", count: 49 - text.utf8.count) + "\n"
        }
        let directory = NSTemporaryDirectory() + "pace-dropped-stall-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/in", contents: Data(lines.joined().utf8)))
        #expect(mkfifo(directory + "/d", 0o600) == 0)
        let reader = open(directory + "/d", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let file = open(directory + "/in", O_RDONLY | O_CLOEXEC)
        let out = open(directory + "/out", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(reader); close(file); close(out) }
        let pace = try PipedPace(["--replay", "--throttle", "1s", "--key-field", "2", "--dropped", directory + "/d"],
                                 .init(stdinFile: file, stdoutFile: out))
        #expect(pace.waitUntilBlockedWriting(holding: 65_000, to: reader) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        // stdout's buffer was written out: exactly the lines that passed.
        let written = FileManager.default.contents(atPath: directory + "/out").map { Array($0) } ?? []
        #expect(written.count == 1_001 * 50)
        let exact = written == Array(lines.prefix(1_001).joined().utf8)
        #expect(exact)
        // The discarded lines taken (the input's offset is just past the last
        // line taken) are the FIFO's whole lines plus those counted.
        let taken = Int(lseek(file, 0, SEEK_CUR)) / 50
        var fifo = [UInt8](repeating: 0, count: 1 << 20)
        let got = read(reader, &fifo, fifo.count)
        let whole = got > 0 ? fifo[..<got].count { $0 == 0x0A } : 0
        #expect(whole > 0)
        #expect(end.errors == "pace: interrupted: 0 lines not written\n"
                + "pace: interrupted: \(taken - 1_001 - whole) lines not written to \(directory)/d\n")
        #expect(taken - 1_001 - whole > 0)
    }

    @Test("a second signal while stdout is stalled: a --dropped write that fails then is still reported")
    func secondSignalThenDroppedFails() throws {
        // 999 discarded lines (50 KB, inside --dropped's buffer) after the
        // first `same`, then 30,000 that pass, on which stdout's pipe stalls.
        let lines = (Array(repeating: "1us same ", count: 1_000) + (0..<30_000).map { "1us k\($0) " }).map { text in
            text + String(repeating: "x", count: 49 - text.utf8.count) + "\n"
        }
        let path = NSTemporaryDirectory() + "pace-dropped-full-\(getpid())-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(lines.joined().utf8)))
        defer { unlink(path) }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        let pace = try PipedPace(["--replay", "--throttle", "1s", "--key-field", "2", "--dropped", "/dev/full"],
                                 .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 65_000) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        // What stdout got is the passing lines (the first `same`, then the
        // keys) from the first on, the last perhaps in part; the rest of
        // those taken are counted as not written.
        let taken = Int(lseek(file, 0, SEEK_CUR)) / 50
        let whole = end.output.count { $0 == 0x0A }
        #expect(whole > 1)
        let passed = Array(([lines[0]] + lines[1_000..<(1_000 + whole)]).joined().utf8)
        let exact = end.output.count < passed.count && passed.starts(with: end.output)
        #expect(exact)
        #expect(end.errors == "pace: /dev/full: No space left on device\n"
                + "pace: interrupted: \(taken - 999 - whole) lines not written\n")
    }

    @Test("after a second signal the lines still held are pending in --stats and --metrics alike, and not in --dropped")
    func secondSignalLeavesPending() throws {
        // 3,000 keys, each line pending an hour; end of input emits them all
        // at once into a pipe nobody reads.
        let lines = (0..<3_000).map { index in
            let text = "k\(index) "
            return text + String(repeating: "x", count: 99 - text.utf8.count) + "\n"
        }
        let directory = NSTemporaryDirectory() + "pace-second-pending-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/in", contents: Data(lines.joined().utf8)))
        let file = open(directory + "/in", O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        let pace = try PipedPace(["--debounce", "1h", "--key-field", "1", "--stats", "--metrics", directory + "/m",
                                  "--dropped", directory + "/d"], .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 60_000) != nil)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        func row(_ name: String) -> Int? {
            end.errors.split(separator: "\n").first { $0.hasPrefix("  \(name):") }
                .flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        let emitted = row("emitted") ?? -1
        let pending = row("pending") ?? -1
        #expect(row("events in") == 3_000 && row("dropped") == 0)
        #expect(emitted > 0 && pending > 0 && emitted + pending == 3_000)
        let metrics = (try? String(contentsOfFile: directory + "/m", encoding: .utf8)) ?? ""
        #expect(metrics.contains("\npace_lines_emitted_total \(emitted)\n"))
        #expect(metrics.contains("\npace_lines_discarded_total 0\n"))
        #expect(metrics.contains("\npace_lines_pending \(pending)\n"))
        #expect(FileManager.default.contents(atPath: directory + "/d") == Data())
    }

    @Test("live: a second signal while --record's FIFO is stalled counts the lines the file did not get")
    func secondSignalWhileRecordStalls() throws {
        // 1,200 lines of 50 bytes (60 KB, all in stdin's pipe at once) are
        // 82 KB once recorded with their times: more than the FIFO holds.
        let lines = (0..<1_200).map { index in
            let text = "k\(index) "
            return text + String(repeating: "x", count: 49 - text.utf8.count) + "\n"
        }
        let directory = NSTemporaryDirectory() + "pace-record-stall-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkfifo(directory + "/r", 0o600) == 0)
        let reader = open(directory + "/r", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        defer { close(reader) }
        let pace = try PipedPace(["--throttle", "1s", "--record", directory + "/r"],
                                 .init(prefill: Array(lines.joined().utf8)))
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilBlockedWriting(holding: 65_000, to: reader) != nil)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        #expect(end.output == Array(lines[0].utf8))
        var fifo = [UInt8](repeating: 0, count: 1 << 20)
        let got = read(reader, &fifo, fifo.count)
        let whole = got > 0 ? fifo[..<got].count { $0 == 0x0A } : 0
        #expect(whole > 0 && whole < 1_200)
        #expect(end.errors == "pace: interrupted: 0 lines not written\n"
                + "pace: interrupted: \(1_200 - whole) lines not written to \(directory)/r\n")
    }

    // pace opens an input FIFO without waiting for its writer: the run
    // waits for it, where a signal ends the run as anywhere else.
    @Test("a signal while pace waits for its input FIFO's first writer ends the run: its summary, --metrics, 128 + N",
          arguments: [(SIGTERM, 143), (SIGQUIT, 131), (SIGHUP, 129), (SIGINT, 130), (SIGUSR2, 140)] as [(Int32, Int32)])
    func signalAtStart(signal: Int32, status: Int32) throws {
        let fifo = NSTemporaryDirectory() + "pace-start-\(getpid())-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo); unlink(fifo + ".prom") }
        let pace = try PipedPace(["--throttle", "1s", "--stats", "--metrics", fifo + ".prom", fifo])
        #expect(waitUntilPolling(pace))
        kill(pace.pid, signal)
        let end = pace.finish(timeout: 5)
        #expect(end.output == [])
        #expect(end.errors.hasPrefix("pace: stats:\n  events in:           0\n"))
        #expect(end.status == status)
        #expect(pace.process.terminationReason == .exit)
        let metrics = (try? String(contentsOfFile: fifo + ".prom", encoding: .utf8)) ?? ""
        #expect(metrics.contains("\npace_lines_read_total 0\n"))
    }

    @Test("SIGUSR1 while pace waits for its input FIFO's first writer: the summary, and the run goes on")
    func summaryAtStart() throws {
        let fifo = NSTemporaryDirectory() + "pace-start-\(getpid())-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let pace = try PipedPace(["--throttle", "1s", fifo])
        #expect(waitUntilPolling(pace))
        #expect(pace.send(SIGUSR1))
        #expect(pace.readLine(stderr: true) == "pace: stats:")
        #expect(waitUntilPolling(pace))
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        #expect(write(writer, "a\n", 2) == 2)
        close(writer)
        let end = pace.finish(timeout: 5)
        #expect(end.output == Array("a\n".utf8))
        #expect(end.errors.hasPrefix("  events in:           0\n"))
        #expect(end.status == 0)
    }
}
