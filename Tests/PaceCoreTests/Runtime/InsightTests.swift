// Seeing why a line vanished: --trace and --stats' table of keys on fixed
// inputs, each expected text worked out by hand (the arithmetic is in the
// comments). --marbles is InsightMarbleTests'.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

struct Watched {
    var report: RunReport
    var stdout: String
    var trace: String
}

/// Runs replay as pace would with `arguments` over `input`.
func replay(_ arguments: [String], _ input: String, columns: Int = 80) -> Watched {
    guard case let .success(.run(configuration)) = parseArguments(arguments) else {
        preconditionFailure("bad arguments \(arguments)")
    }
    let inFD = memoryFile(Array(input.utf8))
    let output = ScriptedClock.Pipe()
    let trace = ScriptedClock.Pipe()
    var reader = LineReader(fd: inFD)
    let report = runReplay(configuration, defaultYear: 2026, input: &reader, outputFD: output.writer,
                           traceFD: trace.writer, columns: columns, signals: .none)
    close(inFD)
    close(output.writer)
    close(trace.writer)
    defer { close(output.reader); close(trace.reader) }
    return Watched(report: report, stdout: output.readAll(), trace: trace.readAll())
}

/// Lines 1 to 7: a burst, an empty line, a line after the window, a bad
/// timestamp, a line still pending at the end.
let burst = """
    0.000 a
    0.100 b
    0.200 c

    0.700 d
    bad
    0.800 e

    """

/// Five lines over two keys (field 2).
let twoKeys = """
    0.000 x a
    0.100 y b
    0.200 x c
    0.250 x d
    0.700 y e

    """

@Suite("Trace, key stats and marbles")
struct InsightTests {
    // MARK: - --trace

    @Test("debounce: replaced, empty, emitted, passed through, pending at the end")
    func debounceTrace() {
        let run = replay(["--debounce", "300ms", "--replay", "--time-format", "unix", "--on-bad-time", "pass",
                          "--trace"], burst)
        #expect(run.stdout == "0.200 c\nbad\n0.800 e\n")
        // c's timer (0.2 + 0.3) fires before d (0.7) is handled; bad passes
        // at the latest time, 0.7; e is pending at the end, due 0.8 + 0.3.
        #expect(run.trace == """
            pace: trace: line 1: replaced by line 2
            pace: trace: line 2: replaced by line 3
            pace: trace: line 4: empty, skipped
            pace: trace: line 3: emitted at 0.500000
            pace: trace: line 6: bad timestamp, passed through at 0.700000
            pace: trace: line 5: replaced by line 7
            pace: trace: line 7: still pending at end of input, emitted at 1.100000

            """)
    }

    @Test("throttle per key: dropped inside the key's window")
    func throttleTrace() {
        let run = replay(["--throttle", "300ms", "--replay", "--time-format", "unix", "--key-field", "2", "--trace"],
                         twoKeys)
        #expect(run.stdout == "0.000 x a\n0.100 y b\n0.700 y e\n")
        #expect(run.trace == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: emitted at 0.100000
            pace: trace: line 3: dropped inside the window ending at 0.300000
            pace: trace: line 4: dropped inside the window ending at 0.300000
            pace: trace: line 5: emitted at 0.700000

            """)
    }

    @Test("leading: a dropped line names the burst's end as it then stood")
    func leadingTrace() {
        let run = replay(["--leading", "300ms", "--replay", "--time-format", "unix", "--on-bad-time", "skip",
                          "--trace"], "0.000 x\n0.100 y\nnope\n0.200 z\n0.500 w\n")
        #expect(run.trace == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: dropped inside the window ending at 0.400000
            pace: trace: line 3: bad timestamp, skipped
            pace: trace: line 4: dropped inside the window ending at 0.500000
            pace: trace: line 5: emitted at 0.500000

            """)
    }

    @Test("throttle-last: the latest of a window replaces the one before")
    func throttleLastTrace() {
        let run = replay(["--throttle-last", "300ms", "--replay", "--time-format", "unix", "--trace"],
                         "0.000 x\n0.100 y\n0.200 z\n0.500 w\n")
        // z goes out when [0, 0.3) ends and opens [0.3, 0.6): w waits for 0.6.
        #expect(run.trace == """
            pace: trace: line 1: emitted at 0.000000
            pace: trace: line 2: replaced by line 3
            pace: trace: line 3: emitted at 0.300000
            pace: trace: line 4: still pending at end of input, emitted at 0.600000

            """)
    }

    @Test("live: line numbers count every line read; end of input releases the pending one")
    func liveTrace() {
        let trace = ScriptedClock.Pipe()
        let wall: Instant = 1_795_953_600_123_456_789
        let run = LiveRun.scripted(["--debounce", "100ms", "--trace"], [
            (0, .input("a\nb\n")),
            (500_000_000, .input("c\n")),
            (550_000_000, .endOfInput),
        ], wallAtStart: wall, traceFD: trace.writer)
        close(trace.writer)
        let text = trace.readAll()
        close(trace.reader)
        #expect(run.emissions.count == 2)
        // Instants are floored to the microsecond: .123456 + 0.1, and the
        // end of input at .123456 + 0.55, before c's deadline (.723456).
        #expect(text == """
            pace: trace: line 1: replaced by line 2
            pace: trace: line 2: emitted at 1795953600.223456
            pace: trace: line 3: still pending at end of input, emitted at 1795953600.673456

            """)
    }

    @Test("without --trace, nothing is traced")
    func noTrace() {
        let run = replay(["--debounce", "300ms", "--replay", "--time-format", "unix"], burst)
        #expect(run.trace == "")
        #expect(run.report.topKeys == nil)
        #expect(run.report.marbles == nil)
    }

    // MARK: - --stats by key

    @Test("stats: in, emitted and dropped per key, after the summary")
    func keyStats() {
        let run = replay(["--throttle", "300ms", "--replay", "--time-format", "unix", "--key-field", "2", "--stats"],
                         twoKeys)
        #expect(run.report.topKeys == [KeyCount(key: Array("x".utf8), eventsIn: 3, emitted: 1),
                                       KeyCount(key: Array("y".utf8), eventsIn: 2, emitted: 2)])
        #expect(run.report.statsText.hasSuffix("""
              empty lines:         0
            pace: stats by key (top 2 of 2 by events in):
              key  in  emitted  dropped
              x     3        1        2
              y     2        2        0

            """))
    }

    @Test("stats: unkeyed, no table")
    func unkeyedStats() {
        let run = replay(["--debounce", "300ms", "--replay", "--time-format", "unix", "--stats"], burst)
        #expect(run.report.topKeys == nil)
        #expect(!run.report.statsText.contains("by key"))
    }

    @Test("stats: the top 10 by events in, ties by key bytes")
    func topTen() {
        let insight = RunInsight(trace: nil, keyField: .field(1), countKeys: true, marbles: false)
        let keys = ["k11", "b", "k05", "a", "k10", "k02", "k09", "b", "k01", "k08", "a", "k07", "k03", "k04", "k06"]
        for (i, key) in keys.enumerated() {
            let bytes = Array(key.utf8)
            bytes.withUnsafeBytes { insight.entered(EventNumber(i + 1), key: $0, at: 0) }
        }
        let line = Array("a rest".utf8), key = Array("a".utf8)
        line.withUnsafeBytes { line in
            key.withUnsafeBytes { insight.emitted(Emission(line: line, time: 0, number: 4, key: $0, slot: 0), atEnd: false) }
        }
        let top = insight.topKeys()!
        #expect(top.map { String(decoding: $0.key, as: UTF8.self) }
                == ["a", "b", "k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08"])
        #expect(top[0] == KeyCount(key: Array("a".utf8), eventsIn: 2, emitted: 1))
    }

    @Test("stats table: columns sized to the widest key and count; the empty key is shown as \"\"")
    func tableLayout() {
        let text = keyTableText([KeyCount(key: Array("alpha".utf8), eventsIn: 12345, emitted: 5),
                                 KeyCount(key: [], eventsIn: 7, emitted: 7)], distinctKeys: 2)
        #expect(text == """
            pace: stats by key (top 2 of 2 by events in):
              key       in  emitted  dropped
              alpha  12345        5    12340
              ""         7        7        0

            """)
    }

    // Issue 21: keys from a log reached the terminal raw.
    @Test("stats table: a key's control bytes, backslash and invalid UTF-8 are shown escaped; columns fit what is shown")
    func tableEscapes() {
        let text = keyTableText([KeyCount(key: Array("\u{1B}[31mred".utf8), eventsIn: 3, emitted: 1),
                                 KeyCount(key: [0xFF], eventsIn: 2, emitted: 2),
                                 KeyCount(key: [0xFE], eventsIn: 1, emitted: 1),
                                 KeyCount(key: Array("a\\b\tc".utf8), eventsIn: 1, emitted: 0)], distinctKeys: 4)
        #expect(text == """
            pace: stats by key (top 4 of 4 by events in):
              key          in  emitted  dropped
              \\x1b[31mred   3        1        2
              \\xff          2        2        0
              \\xfe          1        1        0
              a\\\\b\\tc       1        0        1

            """)
    }

    @Test("displayKey: cut to 23 characters and … past 24, after escaping, never inside an escape")
    func displayKeyCut() {
        let a = { (n: Int) in String(repeating: "a", count: n) }
        #expect(displayKey([]) == "\"\"")
        #expect(displayKey(Array(a(24).utf8)) == a(24))
        #expect(displayKey(Array(a(25).utf8)) == a(23) + "…")
        // 20 + 4 = 24 shown characters: not cut.
        #expect(displayKey(Array((a(20) + "\u{1B}").utf8)) == a(20) + "\\x1b")
        // 21 + 4 = 25: cut; the escape would end past 23, so it goes whole.
        #expect(displayKey(Array((a(21) + "\u{1B}").utf8)) == a(21) + "…")
        #expect(displayKey(Array(a(22).utf8) + [0xFF, 0x62]) == a(22) + "…")
        // An escape that ends at 23 is kept.
        #expect(displayKey(Array(a(19).utf8) + [0xFF] + Array(a(2).utf8)) == a(19) + "\\xff" + "…")
        #expect(displayKey(Array(a(21).utf8) + [0x5C, 0x5C]) == a(21) + "\\\\" + "…")
        // Characters, not bytes: 24 é are 48 bytes and are not cut.
        #expect(displayKey(Array(String(repeating: "é", count: 24).utf8)) == String(repeating: "é", count: 24))
        #expect(displayKey(Array(String(repeating: "é", count: 25).utf8)) == String(repeating: "é", count: 23) + "…")
    }
}
