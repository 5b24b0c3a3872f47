// Replay keeps a held-back line as a slice of the reader's buffer and copies
// it only before the reader reuses that buffer. These tests run the same
// input through replay with a reader buffer of a few bytes (a refill, and
// the buffer moving or growing, between almost every two lines) and of the
// default size, and through the scheduler fed line by line with copies: all
// three must write the same bytes.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

/// Runs replay over `input` with a reader of `capacity` bytes; returns what
/// it emitted, each line followed by `\n`.
private func replay(_ configuration: Configuration, _ input: [UInt8], capacity: Int) -> [UInt8] {
    let inFD = memoryFile(input)
    defer { close(inFD) }
    var reader = LineReader(fd: inFD, capacity: capacity)
    var sink = RecordingSink()
    let report = runReplay(configuration, defaultYear: 2026, input: &reader, sink: &sink, signals: .none)
    #expect(report.end == .endOfInput)
    return sink.emissions.flatMap { $0.line + [0x0A] }
}

/// The same lines through the scheduler's copying `send`.
private func scheduled<P: Policy>(_ policy: P, keyed: Bool, _ lines: [(Instant, String, String)]) -> [UInt8]
where P.Payload == EventNumber {
    var clock = TestClock(policy: policy, keyed: keyed)
    for (t, line, key) in lines {
        clock.advance(to: t)
        clock.send(line, key: key)
    }
    clock.finish()
    return clock.emissions.flatMap { $0.line + [0x0A] }
}

/// Where two outputs part (nil when equal), short enough to read on failure.
private func difference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
    if actual == expected { return nil }
    let at = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    func around(_ bytes: [UInt8]) -> String {
        String(decoding: bytes[max(0, at - 40)..<min(bytes.count, at + 40)], as: UTF8.self)
    }
    return "\(actual.count) bytes, expected \(expected.count); first difference at \(at): "
        + "\(around(actual).debugDescription) vs \(around(expected).debugDescription)"
}

struct ReplayBorrowingTests {
    @Test(arguments: ["debounce", "throttle-last", "leading", "leading-trailing", "throttle", "limit", "rate"], [false, true])
    func replayWritesWhatTheSchedulerWritesWhateverTheBufferSize(policy: String, keyed: Bool) {
        var rng = SplitMix64(seed: 11)
        let window: Nanoseconds = 5_000
        var lines: [(Instant, String, String)] = []
        var t = Instant(nanoseconds: 1_000_000_000 * 1_000_000_000)
        // Many keys, so that more lines are held back than one read's worth
        // of bookkeeping allows (the scheduler then copies early).
        let keys = keyed ? 3_000 : 1
        for i in 0..<20_000 {
            t += Nanoseconds([0, 1_000, 4_999, 5_000, 5_001, 20_000][rng.below(6)])
            let key = "k\(rng.below(keys))"
            let padding = String(repeating: "x", count: rng.below(5) == 0 ? rng.below(200) : rng.below(8))
            let seconds = t.nanoseconds / 1_000_000_000
            let micros = t.nanoseconds % 1_000_000_000 / 1_000
            let stamp = "\(seconds)." + String(String(micros + 1_000_000).dropFirst())
            lines.append((Instant(nanoseconds: t.nanoseconds / 1_000 * 1_000), "\(stamp) \(key) \(i) \(padding)", key))
        }
        let input = Array(lines.map { $0.1 + "\n" }.joined().utf8)
        // --rate with a bucket of 2: lines wait two or more deep, held past
        // the reads that bring the lines behind them.
        let expected: [UInt8], choice: PolicyChoice
        switch policy {
        case "debounce":
            choice = .debounce(window, maxWait: nil)
            expected = scheduled(Debounce(window: window), keyed: keyed, lines)
        case "leading":
            choice = .leading(window)
            expected = scheduled(Leading(window: window), keyed: keyed, lines)
        case "leading-trailing":
            choice = .leadingTrailing(window)
            expected = scheduled(LeadingTrailing(window: window), keyed: keyed, lines)
        case "throttle":
            choice = .throttle(window)
            expected = scheduled(ThrottleFirst(window: window), keyed: keyed, lines)
        case "throttle-last":
            choice = .throttleLast(window)
            expected = scheduled(ThrottleLast(window: window), keyed: keyed, lines)
        case "limit":
            choice = .limit(CellRate(count: 3, per: window, burst: 3))
            expected = scheduled(Limit(rate: CellRate(count: 3, per: window, burst: 3)), keyed: keyed, lines)
        default:
            choice = .rate(CellRate(count: 3, per: window, burst: 2))
            expected = scheduled(Rate(rate: CellRate(count: 3, per: window, burst: 2)), keyed: keyed, lines)
        }
        var configuration = Configuration(policy: choice)
        configuration.replay = true
        configuration.keyField = keyed ? .field(2) : nil
        #expect(!expected.isEmpty)
        #expect(difference(replay(configuration, input, capacity: 16), expected) == nil)
        #expect(difference(replay(configuration, input, capacity: LineReader.defaultCapacity), expected) == nil)
    }
}
