// The sink the tests read back: every line a scheduler emits, with the time
// it was emitted at, kept in memory so a test can compare the whole list.

import PaceCore

/// A line that left a scheduler, and when.
package struct Emitted: Equatable, CustomStringConvertible, Sendable {
    package var time: Instant
    package var line: [UInt8]
    /// `--count`'s number, when the run counts (0 otherwise).
    package var count: Int64
    /// `--resolve-after`'s mark (`.none` without it).
    package var mark: EpisodeMark

    package init(time: Instant, line: [UInt8], count: Int64 = 0, mark: EpisodeMark = .none) {
        self.time = time
        self.line = line
        self.count = count
        self.mark = mark
    }

    package init(time: Instant, _ line: String) {
        self.init(time: time, line: Array(line.utf8))
    }

    package var description: String {
        "\(String(decoding: line, as: UTF8.self))@\(time)" + (mark == .none ? "" : ":\(mark.word)")
    }
}

/// An emission's place in its `--batch` (size 0: the run has none).
package struct BatchPlace: Equatable, CustomStringConvertible, Sendable {
    package var index: Int32
    package var size: Int32

    package init(_ index: Int32, of size: Int32) {
        self.index = index
        self.size = size
    }

    package var description: String { "\(index)/\(size)" }
}

/// A sink that keeps every emission.
package struct RecordingSink: LineSink {
    package var emissions: [Emitted] = []
    /// Each emission's place in its batch, in the same order.
    package var batchPlaces: [BatchPlace] = []
    package init() {}
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        emissions.append(Emitted(time: emission.time, line: Array(emission.line), count: emission.count,
                                 mark: emission.mark))
        batchPlaces.append(BatchPlace(emission.batchIndex, of: emission.batchSize))
    }
}
