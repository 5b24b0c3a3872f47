// A second SIGINT or SIGTERM while a write is blocked, and the outputs: what
// each output still gets (a file takes its buffer at once, a stalled FIFO
// gives up), what the messages count as not written, per file, and how
// --stats and --metrics count the lines still held. Synchronised on what
// pace shows: a full pipe or FIFO, pace asleep, the signal taken.

import Foundation
import Glibc
import Testing

/// Each of `texts` padded with `x` to `width` bytes, its newline included.
private func padded(_ texts: [String], width: Int) -> [String] {
    texts.map { $0 + String(repeating: "x", count: width - 1 - $0.utf8.count) + "\n" }
}

@Suite("A second signal and the outputs, end to end", .serialized)
struct SecondSignalOutputTests {
    @Test("a second signal still writes out the lines --dropped got in replay, which buffers them")
    func secondSignalKeepsDropped() throws {
        // Two lines a millisecond under a 1 ms throttle: the second of each
        // pair is discarded. From a file, so replay never stops to wait for
        // input (where it writes --dropped out): stdout's writes block in
        // the middle of the run, with discards still in --dropped's buffer.
        let input = padded((0..<40_000).map { "\($0 * 500)us line \($0) " }, width: 100).joined()
        let scratch = FifoScratch("pace-second-dropped")
        let directory = scratch.path
        let file = scratch.input(input)
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
        let lines = padded(passing + Array(repeating: "2us same ", count: 19_999), width: 50)
        let scratch = FifoScratch("pace-dropped-stall")
        let directory = scratch.path
        let file = scratch.input(lines.joined())
        let reader = scratch.fifoReader("d")
        let out = open(directory + "/out", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(out) }
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
        let whole = wholeLines(waitingIn: reader)
        #expect(whole > 0)
        #expect(end.errors == "pace: interrupted: 0 lines not written\n"
                + "pace: interrupted: \(taken - 1_001 - whole) lines not written to \(directory)/d\n")
        #expect(taken - 1_001 - whole > 0)
    }

    @Test("a second signal while stdout is stalled: a --dropped write that fails then is still reported")
    func secondSignalThenDroppedFails() throws {
        // 999 discarded lines (50 KB, inside --dropped's buffer) after the
        // first `same`, then 30,000 that pass, on which stdout's pipe stalls.
        let lines = padded(Array(repeating: "1us same ", count: 1_000) + (0..<30_000).map { "1us k\($0) " }, width: 50)
        let scratch = FifoScratch("pace-dropped-full")
        let file = scratch.input(lines.joined())
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
        let lines = padded((0..<3_000).map { "k\($0) " }, width: 100)
        let scratch = FifoScratch("pace-second-pending")
        let directory = scratch.path
        let file = scratch.input(lines.joined())
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
        let lines = padded((0..<1_200).map { "k\($0) " }, width: 50)
        let scratch = FifoScratch("pace-record-stall")
        let directory = scratch.path
        let reader = scratch.fifoReader("r")
        let pace = try PipedPace(["--throttle", "1s", "--record", directory + "/r"],
                                 .init(prefill: Array(lines.joined().utf8)))
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilBlockedWriting(holding: 65_000, to: reader) != nil)
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        #expect(end.output == Array(lines[0].utf8))
        let whole = wholeLines(waitingIn: reader)
        #expect(whole > 0 && whole < 1_200)
        #expect(end.errors == "pace: interrupted: 0 lines not written\n"
                + "pace: interrupted: \(1_200 - whole) lines not written to \(directory)/r\n")
    }

    @Test("live from a file: the line whose --record write a second signal interrupted goes back to the file, and is not counted as not written")
    func secondSignalWhileRecordStallsFromFile() throws {
        // As above, but from a regular file, and more lines than the record's
        // buffer holds (272 KB recorded, one read): its first write out
        // stalls while the lines are recorded, not after. The line being
        // recorded then was never taken, and pace leaves it in the file.
        let lines = padded((0..<4_000).map { "k\($0) " }, width: 50)
        let scratch = FifoScratch("pace-record-stall-file")
        let directory = scratch.path
        let file = scratch.input(lines.joined())
        let reader = scratch.fifoReader("r")
        let pace = try PipedPace(["--throttle", "1s", "--record", directory + "/r"], .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 65_000, to: reader) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        #expect(end.output == Array(lines[0].utf8))
        // The lines taken (the offset is just past the last one) are the
        // FIFO's whole lines plus those counted.
        let taken = Int(lseek(file, 0, SEEK_CUR)) / 50
        let whole = wholeLines(waitingIn: reader)
        #expect(whole > 0 && taken > whole && taken < 4_000)
        #expect(end.errors == "pace: interrupted: 0 lines not written\n"
                + "pace: interrupted: \(taken - whole) lines not written to \(directory)/r\n")
    }

    @Test("replay into a pipe with --count and --emit-time: a second signal counts the line whose prefix did not fit",
          arguments: [["--count"], ["--count", "--emit-time"], ["--count", "--resolve-after", "1h"],
                     ["--count", "--emit-time", "--resolve-after", "1h"]])
    func secondSignalCountsPrefixedLine(prefixes: [String]) throws {
        // Every line passes, each with its prefixes; the lines are of a width
        // that makes a buffer fill at a prefix, before the line is stored.
        let lines = (0..<200_000).map { "\(1_795_953_600 + $0).000000 k\($0 % 50) " + String(repeating: "x", count: 30) + "\n" }
        let scratch = FifoScratch("pace-count-stall")
        let file = scratch.input(lines.joined())
        let pace = try PipedPace(["--replay", "--throttle", "1ns", "--stats"] + prefixes, .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 65_000) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        let whole = end.output.count { $0 == 0x0A }
        let report = end.errors.split(separator: "\n")
        let notWritten = report.first { $0.hasPrefix("pace: interrupted: ") }
            .flatMap { Int($0.split(separator: " ")[2]) }
        let emitted = report.first { $0.hasPrefix("  emitted:") }.flatMap { Int($0.split(separator: " ").last!) }
        #expect(whole > 0 && notWritten != nil && emitted != nil)
        #expect(whole + (notWritten ?? 0) == emitted)
    }
}
