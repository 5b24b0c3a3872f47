// Replay keeps a held-back line as a slice of the reader's buffer and copies
// it only before the reader reuses that buffer. These tests run the same
// input through replay with a reader buffer of a few bytes (a refill, and
// the buffer moving or growing, between almost every two lines) and of the
// default size, and through the scheduler fed line by line with copies: all
// three must write the same bytes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import PaceCore
import Testing

/// Runs replay over `input` with a reader of `capacity` bytes; returns stdout.
private func replay(_ configuration: Configuration, _ input: [UInt8], capacity: Int) -> [UInt8] {
    var template = Array("/tmp/pace-borrow-XXXXXX".utf8CString)
    let inFD = mkstemp(&template)
    precondition(inFD >= 0)
    let inPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    input.withUnsafeBytes { _ = write(inFD, $0.baseAddress, $0.count) }
    lseek(inFD, 0, SEEK_SET)
    var outTemplate = Array("/tmp/pace-borrow-out-XXXXXX".utf8CString)
    let outFD = mkstemp(&outTemplate)
    precondition(outFD >= 0)
    let outPath = String(decoding: outTemplate.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var reader = LineReader(fd: inFD, capacity: capacity)
    let report = runReplay(configuration, defaultYear: 2026, input: &reader, outputFD: outFD, pendingSignal: { 0 })
    #expect(report.end == .endOfInput)
    let size = Int(lseek(outFD, 0, SEEK_END))
    lseek(outFD, 0, SEEK_SET)
    var output = [UInt8](repeating: 0, count: size)
    output.withUnsafeMutableBytes { _ = read(outFD, $0.baseAddress, size) }
    close(inFD)
    close(outFD)
    unlink(inPath)
    unlink(outPath)
    return output
}

/// The same lines through the scheduler's copying `send`.
private func scheduled<P: Policy>(_ policy: P, keyed: Bool, _ lines: [(Instant, String, String)]) -> [UInt8]
where P.Payload == EventNumber {
    var scheduler = Scheduler(policy: policy, keyed: keyed, sink: RecordingSink())
    for (t, line, key) in lines {
        var line = line
        var key = key
        line.withUTF8 { l in
            key.withUTF8 { k in try! scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer(k), at: t) }
        }
    }
    try! scheduler.finish()
    return scheduler.sink.emissions.flatMap { $0.line + [0x0A] }
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
    @Test(arguments: [PolicyKind.debounce, .throttleLast, .leading, .throttleFirst], [false, true])
    func replayWritesWhatTheSchedulerWritesWhateverTheBufferSize(policy: PolicyKind, keyed: Bool) {
        var state: UInt64 = 11
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let window: Nanoseconds = 5_000
        var lines: [(Instant, String, String)] = []
        var t: Instant = 1_000_000_000 * 1_000_000_000
        // Many keys, so that more lines are held back than one read's worth
        // of bookkeeping allows (the scheduler then copies early).
        let keys = keyed ? 3_000 : 1
        for i in 0..<20_000 {
            t += Instant([0, 1_000, 4_999, 5_000, 5_001, 20_000][next(6)])
            let key = "k\(next(keys))"
            let padding = String(repeating: "x", count: next(5) == 0 ? next(200) : next(8))
            let seconds = t / 1_000_000_000
            let micros = t % 1_000_000_000 / 1_000
            let stamp = "\(seconds)." + String(String(micros + 1_000_000).dropFirst())
            lines.append((t / 1_000 * 1_000, "\(stamp) \(key) \(i) \(padding)", key))
        }
        let input = Array(lines.map { $0.1 + "\n" }.joined().utf8)
        var configuration = Configuration(policy: policy, window: window)
        configuration.replay = true
        configuration.keyField = keyed ? .field(2) : nil
        let expected: [UInt8]
        switch policy {
        case .debounce: expected = scheduled(Debounce(window: window), keyed: keyed, lines)
        case .leading: expected = scheduled(Leading(window: window), keyed: keyed, lines)
        case .throttleFirst: expected = scheduled(ThrottleFirst(window: window), keyed: keyed, lines)
        case .throttleLast: expected = scheduled(ThrottleLast(window: window), keyed: keyed, lines)
        }
        #expect(!expected.isEmpty)
        #expect(difference(replay(configuration, input, capacity: 16), expected) == nil)
        #expect(difference(replay(configuration, input, capacity: LineReader.defaultCapacity), expected) == nil)
    }
}
