// SIGUSR1 while a write waits for a reader that has stopped reading: the
// summary comes at once (SPEC: a signal is acted on promptly even then),
// from the figures as of the last input read, and the run goes on.

import Foundation
import Glibc
import Testing

@Suite("SIGUSR1 while a write waits, end to end", .serialized)
struct SummaryWhileBlockedTests {
    /// The summary's lines on stderr, from `pace: stats:` to the note that
    /// ends it; nil if it did not come.
    private func summary(of pace: PipedPace) -> [String]? {
        var lines: [String] = []
        while let line = pace.readLine(stderr: true, timeout: 10) {
            lines.append(line)
            if line.hasPrefix("pace: (a write is waiting") { return lines }
        }
        return nil
    }

    /// A `--stats` row's number.
    private func row(_ name: String, in lines: [String]) -> Int? {
        lines.first { $0.hasPrefix("  \(name):") }.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    @Test("replay into a pipe nobody reads: the summary of the last read, then every line once the reader reads")
    func replay() throws {
        let input = (1...30_000).map { index -> String in
            let text = "\(index)us line \(index) "
            return text + String(repeating: "x", count: 99 - text.utf8.count) + "\n"
        }.joined()
        let path = NSTemporaryDirectory() + "pace-usr1-blocked-\(getpid())-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(input.utf8)))
        defer { unlink(path) }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(file) }
        let pace = try PipedPace(["--replay", "--throttle", "1ns"], .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 65_536) != nil)
        #expect(pace.waitUntilAsleep())
        #expect(pace.send(SIGUSR1))
        let lines = summary(of: pace)
        #expect(lines?.first == "pace: stats:")
        #expect(lines?.last == "pace: (a write is waiting for its reader: these are the figures of the last input read)")
        // Every line so far went out (1 ns windows, times 1 us apart).
        let read = lines.flatMap { row("events in", in: $0) } ?? 0
        #expect(read > 0 && read < 30_000)
        #expect(lines.flatMap { row("emitted", in: $0) } == read)
        let end = pace.finish()
        #expect(end.status == 0)
        let whole = end.output == Array(input.utf8)
        #expect(whole)
        #expect(end.errors == "")
    }

    @Test("live: a line's write waits for a full pipe; the summary comes, and the run goes on")
    func live() throws {
        let input = (1...500).map { "k\($0) " + String(repeating: "y", count: 60) + "\n" }.joined()
        let pace = try PipedPace(["--throttle", "1h", "--key-field", "1"],
                                 .init(stdoutPipeSize: 4096, prefill: Array(input.utf8)))
        #expect(pace.waitUntilInputDrained())
        #expect(pace.waitUntilBlockedWriting(holding: 4000) != nil)
        #expect(pace.send(SIGUSR1))
        let lines = summary(of: pace)
        #expect(lines?.first == "pace: stats:")
        #expect(lines?.contains { $0.hasPrefix("  events in:") } == true)
        let end = pace.finish()
        #expect(end.status == 0)
        #expect(end.output == Array(input.utf8))
        #expect(end.errors == "")
    }
}
