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
