// The edges of the process (SPEC: End of input, Time): descriptors inherited
// non-blocking, signals while a write is blocked, a second signal, SIGUSR1,
// a signal ignored at start, and replay flushing before it waits for input.

import Foundation
import Glibc
import Testing

/// `1us x` to `100000us x`: a replay where `--throttle 1ns` lets every line through.
private let microsecondLines = (1...100_000).map { "\($0)us x\n" }.joined()

/// A line of 50,000 bytes and its `\n`, starting with `head`.
private func bigLine(_ head: String) -> String {
    head + String(repeating: "x", count: 50_000 - head.utf8.count) + "\n"
}

/// Three 50,001-byte lines on keys k1 to k3, then a short one on k4. Under
/// `--debounce 10s --key-field 1` they are all pending at end of input, and
/// written out at once, one write each: the first fills 50,001 bytes of a
/// 65,536-byte pipe, the second only part of the rest, so with nobody
/// reading, the write of the second line blocks with it, the third and the
/// fourth not written: 3 lines.
private let liveBigLines = bigLine("k1 ") + bigLine("k2 ") + bigLine("k3 ") + "k4 small\n"

/// The same for replay, all at 0 s, then k4 at 5 s and k5 at 12 s, which
/// makes the first three fire (see `secondSignalInReplay`).
private let replayBigLines = bigLine("0s k1 ") + bigLine("0s k2 ") + bigLine("0s k3 ") + "5s k4 small\n12s k5 small\n"

@Suite("Signals and descriptors, end to end", .serialized)
struct SignalAndDescriptorTests {
    @Test("a stdout inherited non-blocking works as a blocking one: a slow reader gets every line",
          arguments: [false, true])
    func nonBlockingStdout(replay: Bool) throws {
        let input = replay ? microsecondLines : (1...100_000).map { "\($0)\n" }.joined()
        let path = try Pace.file(Array(input.utf8))
        let arguments = replay ? ["--throttle", "1ns", "--replay", path] : ["--throttle", "1ns", "--key-field", "1", path]
        let pace = try PipedPace(arguments, .init(nonBlockingStdout: true))
        // The pipe is full: pace has met EAGAIN, and must wait, not give up.
        #expect(pace.waitUntilBlockedWriting(holding: 65_000) != nil)
        let end = pace.finish(chunk: 4096)
        #expect(end.errors == "")
        #expect(end.status == 0)
        #expect(end.output.count == input.utf8.count)
        let same = end.output == Array(input.utf8)
        #expect(same)
    }

    @Test("a stdin inherited non-blocking works in replay")
    func nonBlockingStdin() throws {
        let pace = try PipedPace(["--throttle", "1ns", "--replay"], .init(nonBlockingStdin: true))
        let input = Array(microsecondLines.utf8)
        // The writer blocks whenever pace's stdin is full; pace keeps reading.
        let writer = Thread { pace.write(input); pace.closeInput() }
        writer.start()
        let end = pace.finish(closingInput: false)
        #expect(end.errors == "")
        #expect(end.status == 0)
        let same = end.output == input
        #expect(same)
    }

    @Test("replay writes each decided line before it waits for more input")
    func replayFlushesBeforeWaiting() throws {
        let pace = try PipedPace(["--throttle", "1s", "--replay"])
        pace.write("0s a\n")
        #expect(pace.readLine() == "0s a")
        pace.write("0.5s dropped\n5s b\n")
        #expect(pace.readLine() == "5s b")
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 0)
    }

    @Test("a second signal while a write is blocked ends pace at once, counting the lines it did not write",
          arguments: [(SIGTERM, 143), (SIGINT, 130)] as [(Int32, Int32)])
    func secondSignalEndsAtOnce(signal: Int32, status: Int32) throws {
        let pace = try PipedPace(["--debounce", "10s", "--key-field", "1"],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(liveBigLines.utf8), closeStdin: true))
        let held = try #require(pace.waitUntilBlockedWriting())
        #expect(pace.send(signal))
        #expect(pace.send(signal))
        let end = pace.finish(timeout: 5)
        #expect(end.status == status)
        #expect(end.errors == "pace: interrupted: 3 lines not written\n")
        let written = end.output == Array(liveBigLines.utf8.prefix(Int(held)))
        #expect(written)
    }

    // In replay, lines 1 to 3 are due at 10 s; line 5 (12 s) makes them fire,
    // and line 4 (due at 15 s) is still pending. Lines 1 and 2 fill the
    // 128 KiB buffer, which goes to the output thread, whose write blocks
    // after 65,536 bytes, inside line 2. The replay goes on: line 3 starts
    // the next buffer, input ends, lines 4 and 5 come out behind it, and the
    // last flush waits for the thread. Lines 2 to 5 are not written.
    @Test("a second signal in replay counts the lines in every buffer not written")
    func secondSignalInReplay() throws {
        let input = replayBigLines
        let path = try Pace.file(Array(input.utf8))
        let pace = try PipedPace(["--debounce", "10s", "--key-field", "2", "--replay", path])
        #expect(pace.waitUntilBlockedWriting(holding: 65536) == 65536)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        #expect(end.errors == "pace: interrupted: 4 lines not written\n")
        let written = end.output == Array(input.utf8.prefix(65536))
        #expect(written)
    }

    @Test("a second signal ends pace at once while a --record write is blocked")
    func secondSignalWhileRecordBlocked() throws {
        let fifo = NSTemporaryDirectory() + "pace-record-\(getpid())-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // A reader that never reads (opened first, so pace's open does not wait).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let input = (1...20_000).map { "line \($0)\n" }.joined()
        let pace = try PipedPace(["--debounce", "10s", "--record", fifo],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(input.utf8), closeStdin: true))
        #expect(pace.waitUntilBlockedWriting(to: reader) != nil)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        // The line debounce held: stdout got nothing. The record file's own
        // count is TerminatingSignalTests' (secondSignalWhileRecordStalls).
        #expect(end.errors.hasPrefix("pace: interrupted: 1 line not written\npace: interrupted: "))
        #expect(end.errors.hasSuffix(" lines not written to \(fifo)\n"))
        #expect(end.output == [])
    }

    @Test("a SIGINT during live mode's end-of-input flush is not lost: every line, then exit 130")
    func sigintDuringFinalFlush() throws {
        let pace = try PipedPace(["--debounce", "10s", "--key-field", "1"],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(liveBigLines.utf8), closeStdin: true))
        #expect(pace.waitUntilBlockedWriting() != nil)
        #expect(pace.send(SIGINT))
        let end = pace.finish(chunk: 4096)
        let all = end.output == Array(liveBigLines.utf8)
        #expect(all)
        #expect(end.errors == "")
        #expect(end.status == 130)
    }

    @Test("a reader that goes away after a signal still leaves the signal's status", arguments: [false, true])
    func readerGoneAfterSignal(replay: Bool) throws {
        let input = replay ? replayBigLines : liveBigLines
        let path = try Pace.file(Array(input.utf8))
        let pace = try PipedPace(["--debounce", "10s", "--key-field", replay ? "2" : "1"] + (replay ? ["--replay"] : []) + [path])
        #expect(pace.waitUntilBlockedWriting() != nil)
        #expect(pace.send(SIGTERM))
        pace.closeOutput()
        let end = pace.finish()
        #expect(end.errors == "")
        #expect(end.status == 143)
    }

    @Test("with a stalled reader, SIGTERM still ends input: once the reader reads, pace exits 143 with stdin open")
    func signalEndsInputWhileWriteBlocked() throws {
        let input = replayBigLines
        let pace = try PipedPace(["--debounce", "10s", "--key-field", "2", "--replay"],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(input.utf8)))
        #expect(pace.waitUntilBlockedWriting() != nil)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(closingInput: false)
        let all = end.output == Array(input.utf8)
        #expect(all)
        #expect(end.errors == "")
        #expect(end.status == 143)
    }

    // Every line passes and all of them fit stdout's buffer: nothing is
    // written until the input runs dry, and then the flush before the wait
    // for more input is what the stalled reader blocks. SIGTERM is taken in
    // that write's wait; once the reader reads, input ends without another
    // byte on stdin (it waited for more input, with stdin open, before).
    @Test("SIGTERM taken while the flush before a wait for input is blocked ends input once the reader reads")
    func signalDuringFlushBeforeWaiting() throws {
        let input = (1...1_000).map { "\($0)us line \(String(repeating: "x", count: 90))\n" }.joined()
        let pace = try PipedPace(["--throttle", "1ns", "--replay"],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(input.utf8)))
        #expect(pace.waitUntilBlockedWriting(holding: 65_536) != nil)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        let all = end.output == Array(input.utf8)
        #expect(all)
        #expect(end.errors == "")
        #expect(end.status == 143)
    }

    /// The `--stats` summary as SPEC words it, for an unkeyed run.
    private func summary(eventsIn: Int, emitted: Int) -> [String] {
        ["pace: stats:",
         "  events in:           \(eventsIn)",
         "  emitted:             \(emitted)",
         "  dropped:             \(eventsIn - emitted)",
         "  distinct keys:       1",
         "  peak active keys:    1",
         "  clamped timestamps:  0",
         "  bad-time lines:      0",
         "  passed through:      0",
         "  empty lines:         0"]
    }

    @Test("SIGUSR1 prints the stats so far and pace goes on, live and in replay from a pipe",
          arguments: [false, true])
    func sigusr1PrintsStats(replay: Bool) throws {
        let pace = try PipedPace(["--throttle", "10s"] + (replay ? ["--replay"] : []))
        pace.write(replay ? "0s a\n" : "a\n")
        #expect(pace.readLine() == (replay ? "0s a" : "a"))
        kill(pace.pid, SIGUSR1)
        let printed = (0..<10).map { _ in pace.readLine(stderr: true) ?? "(none)" }
        #expect(printed == summary(eventsIn: 1, emitted: 1))
        pace.write(replay ? "1s b\n20s c\n" : "b\n")
        if replay { #expect(pace.readLine() == "20s c") }
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 0)
    }

    @Test("a SIGINT ignored at start stays ignored: pace keeps reading and ends normally")
    func ignoredSignalStaysIgnored() throws {
        let pace = try PipedPace(["--throttle", "1s", "--key-field", "1"], .init(ignoreSIGINT: true))
        pace.write("a\n")
        #expect(pace.readLine() == "a")
        kill(pace.pid, SIGINT)
        pace.write("b\n")
        #expect(pace.readLine() == "b")
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.status == 0)
    }

    @Test("live mode notices stdout's reader has gone while stdin stays open and idle")
    func liveNoticesReaderGone() throws {
        let pace = try PipedPace(["--debounce", "1s"])
        pace.closeOutput()
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 0)
        #expect(end.errors == "")
    }
}
