// The sink the tests read back: every line a scheduler emits, with the time
// it was emitted at, kept in memory so a test can compare the whole list.

import PaceCore

/// A line that left a scheduler, and when.
public struct Emission: Equatable, CustomStringConvertible, Sendable {
    public var time: Instant
    public var line: [UInt8]
    /// `--count`'s number, when the run counts (0 otherwise).
    public var count: Int64

    public init(time: Instant, line: [UInt8], count: Int64 = 0) {
        self.time = time
        self.line = line
        self.count = count
    }

    public init(time: Instant, _ line: String) {
        self.init(time: time, line: Array(line.utf8))
    }

    public var description: String { "\(String(decoding: line, as: UTF8.self))@\(time)" }
}

/// A sink that keeps every emission.
public struct RecordingSink: LineSink {
    public var emissions: [Emission] = []
    public init() {}
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        emissions.append(Emission(time: time, line: Array(line)))
    }
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError) {
        emissions.append(Emission(time: time, line: Array(line), count: count))
    }
}
