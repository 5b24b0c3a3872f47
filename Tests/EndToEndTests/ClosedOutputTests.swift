// stdout's reader goes away while lines are held (SPEC Errors: exit 0 at
// once). The held lines never reach stdout, so SPEC's Accounting sends them
// to `--dropped`, in input order, and `--stats` and `--metrics` count them
// as discarded: the three say the same. Held lines of every kind: a key's
// pending line (live and replay), `--rate`'s backlog, a `--batch`'s lines.
// stdin stays open, so input never ends: the closed pipe ends the run, at
// replay's flush before it waits for input (so a line is emitted first:
// replay finds the reader gone by writing), or when live mode sees the
// reader gone.

import Foundation
import Glibc
import Testing

/// A scratch directory for the `--dropped` and `--metrics` files.
private final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pace-closed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func text(_ name: String) -> String? { try? String(contentsOfFile: path(name), encoding: .utf8) }
}

/// The value of metric `name` in a `--metrics` file's text.
private func metric(_ name: String, in text: String?) -> String? {
    text?.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
}

/// The value on `--stats`' row `name` (e.g. `dropped`).
private func statsRow(_ name: String, in errors: String) -> String? {
    errors.split(separator: "\n").first { $0.hasPrefix("  \(name):") }
        .map { String($0.dropFirst(name.count + 3)).trimmingCharacters(in: .whitespaces) }
}

@Suite("stdout closed early with lines held", .serialized)
struct ClosedOutputTests {
    @Test("live: the held lines go to --dropped after the one replaced, and --stats and --metrics count them")
    func live() throws {
        let scratch = try Scratch()
        let pace = try PipedPace(["--debounce", "1h", "--key-field", "1", "--stats", "--dropped", scratch.path("d"),
                                  "--metrics", scratch.path("m")])
        pace.write("a 1\nb 1\na 2\n")
        #expect(pace.waitUntilInputDrained())
        pace.closeOutput()
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 0)
        #expect(scratch.text("d") == "a 1\nb 1\na 2\n")
        #expect(statsRow("emitted", in: end.errors) == "0")
        #expect(statsRow("dropped", in: end.errors) == "3")
        let metrics = scratch.text("m")
        #expect(metric("pace_lines_discarded_total", in: metrics) == "3")
        #expect(metric("pace_lines_pending", in: metrics) == "0")
    }

    @Test("replay: lines held when the flush finds the reader gone go to --dropped; the line emitted before does not",
          arguments: [
              // k1's first line is emitted at its timer (10 s); its second
              // and k2's line are pending.
              (["--debounce", "10s", "--key-field", "2"], "0s k1 one\n20s k1 two\n20s k2 three\n",
               "20s k1 two\n20s k2 three\n", "1"),
              // One line now, the two others waiting their turn.
              (["--rate", "1/10s"], "0s a\n0s b\n0s c\n", "0s b\n0s c\n", "1"),
              // x is a batch of one at 10 s; then a batch of two is held:
              // its first line and the one queued behind it.
              (["--debounce", "10s", "--batch", "5"], "0s x\n20s a\n21s b\n", "20s a\n21s b\n", "1"),
          ] as [([String], String, String, String)])
    func replay(arguments: [String], input: String, dropped: String, emitted: String) throws {
        let scratch = try Scratch()
        let pace = try PipedPace(["--replay", "--stats", "--dropped", scratch.path("d")] + arguments)
        pace.closeOutput()
        pace.write(input)
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 0)
        #expect(scratch.text("d") == dropped)
        #expect(statsRow("emitted", in: end.errors) == emitted)
        #expect(statsRow("dropped", in: end.errors) == String(dropped.split(separator: "\n").count))
    }

    // The reader goes away while replay writes a stream of output (from a
    // file: stdin's end is never waited for): the write that fails is of a
    // held line (a timer's), which counts as emitted, not also discarded.
    // What --dropped gets is what --stats counts, and every line read is
    // one or the other.
    @Test("replay: stdout closed in the middle of the output; --dropped has exactly the lines --stats says were dropped")
    func replayMidWrite() throws {
        let scratch = try Scratch()
        // 50 keys, a line every ms: each key's line is held 10 ms (its
        // debounce), then written; about 10 are held at any time.
        let input = (0..<20_000).map { index -> String in
            let text = "\(index)ms k\(index % 50) "
            return text + String(repeating: "x", count: 99 - text.utf8.count) + "\n"
        }.joined()
        #expect(FileManager.default.createFile(atPath: scratch.path("in"), contents: Data(input.utf8)))
        let file = open(scratch.path("in"), O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        let pace = try PipedPace(["--replay", "--debounce", "10ms", "--key-field", "2", "--stats",
                                  "--dropped", scratch.path("d")], .init(stdinFile: file))
        pace.closeOutput()
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 0)
        let dropped = scratch.text("d")?.split(separator: "\n") ?? []
        let emitted = Int(statsRow("emitted", in: end.errors) ?? "") ?? -1
        #expect(statsRow("dropped", in: end.errors) == String(dropped.count))
        let eventsIn = Int(statsRow("events in", in: end.errors) ?? "") ?? -1
        #expect(dropped.count > 0 && emitted > 0)
        #expect(emitted + dropped.count == eventsIn)
        // In input order, each a line of the input.
        let numbers = dropped.map { Int($0.prefix { $0 != "m" }) ?? -1 }
        #expect(numbers == numbers.sorted() && numbers.allSatisfy { $0 >= 0 })
    }

    @Test("live from a pipe: lines read but not handled when stdout's reader goes away go to --record and --dropped, counted")
    func unhandledLinesFromAPipe() throws {
        // 150 KB in stdin's pipe, read at once; stdout's pipe (64 KB) fills
        // first, so pace waits to write with lines of that read unhandled.
        let lines = (0..<3_000).map { String(format: "%05d ", $0) + String(repeating: "x", count: 43) + "\n" }
        let scratch = try Scratch()
        let pace = try PipedPace(["--limit", "1000000000/s", "--stats", "--record", scratch.path("r"),
                                  "--dropped", scratch.path("d")],
                                 .init(stdinPipeSize: 1 << 20, prefill: Array(lines.joined().utf8)))
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilBlockedWriting() != nil)
        pace.closeOutput()
        let end = pace.finish(timeout: 10, closingInput: false)
        #expect(end.status == 0)
        #expect(statsRow("events in", in: end.errors) == "3000")
        let emitted = Int(statsRow("emitted", in: end.errors) ?? "") ?? -1
        #expect(emitted > 0 && emitted < 3_000)
        #expect(statsRow("dropped", in: end.errors) == String(3_000 - emitted))
        // The lines after the emitted ones, as read, in input order.
        #expect(scratch.text("d") == lines[max(0, emitted)...].joined())
        // The record has every line read, each after its time and a TAB.
        let recorded = (scratch.text("r") ?? "").split(separator: "\n").map { $0.split(separator: "\t").last.map(String.init) }
        #expect(recorded == lines.map { String($0.dropLast()) })
    }
}
