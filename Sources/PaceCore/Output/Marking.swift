// `--resolve-after`: the marking layer. It wraps the sink the run writes to
// (stdout's, or the counting layer over it, or `--exec`'s) and says, as a
// type, that the run marks episodes: the scheduler keeps each key's episode
// (Scheduler/Episodes.swift) only when `Sink.marksEpisodes`, so a run
// without the flag compiles none of it. Every output line then goes on
// through `emitMarked`, which stdout's sink writes with its mark column and
// the counting layer counts (a resolved line is a copy: its count is the
// discards alone). Everything else is passed through.

/// The run marks every output line `first`, `repeat`, `resolved` or
/// `exempt`.
package struct Marked<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    package var base: Base
    /// `--count`: a resolved line shows its count even when it is 0.
    private let showsCount: Bool

    package init(_ base: consuming Base, showsCount: Bool) {
        self.base = base
        self.showsCount = showsCount
    }

    /// The wrapped sink, handed back at the end of the run.
    package consuming func take() -> Base { base }

    package static var marksEpisodes: Bool { true }
    package static var counts: Bool { Base.counts }
    package static var readsKeys: Bool { Base.readsKeys }
    package static var thinsDiscards: Bool { Base.thinsDiscards }

    @inline(__always)
    package func letsThrough(discardOf slot: Int32) -> Bool { base.letsThrough(discardOf: slot) }

    @inline(__always)
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        try base.emitMarked(emission, showingCount: showsCount)
    }

    @inline(__always)
    package mutating func emitMarked(_ emission: Emission, showingCount: Bool) throws(OutputError) {
        try base.emitMarked(emission, showingCount: showingCount)
    }

    @inline(__always)
    package mutating func discarded(slot: Int32) { base.discarded(slot: slot) }
    package mutating func keyJoined(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64, keysInTable: Int) {
        base.keyJoined(slot: slot, key: key, hash: hash, keysInTable: keysInTable)
    }
    package mutating func keyLeft(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64) {
        base.keyLeft(slot: slot, key: key, hash: hash)
    }
    @inline(__always)
    package mutating func keyIdled(slot: Int32) { base.keyIdled(slot: slot) }
    @inline(__always)
    package mutating func keyReturned(slot: Int32) { base.keyReturned(slot: slot) }
    package var countsPassTheirBound: Bool { base.countsPassTheirBound }
    package var uncountedDiscards: Int64 { base.uncountedDiscards }
    package func owed(slot: Int32) -> Int64 { base.owed(slot: slot) }
    package mutating func setOwed(slot: Int32, _ count: Int64) { base.setOwed(slot: slot, count) }
    package func forEachForgotten(_ body: (UnsafeRawBufferPointer, Int64) -> Void) { base.forEachForgotten(body) }
    package mutating func rememberForgotten(_ key: UnsafeRawBufferPointer, hash: UInt64, owed count: Int64) {
        base.rememberForgotten(key, hash: hash, owed: count)
    }
    package mutating func flush() throws(OutputError) { try base.flush() }
}

extension FileSink {
    /// `--resolve-after`: the prefixes, then the mark and a TAB (SPEC
    /// Output). Out of line, as the counted write is.
    @inline(never)
    package mutating func emitMarked(_ emission: Emission, showingCount: Bool) throws(OutputError) {
        if case let .field(member, pair) = countStyle {
            // `--count-field`: the count inside the line, a resolved line's 0 too.
            try write(emission.line, at: emission.time, count: emission.count, member: member, pair: pair,
                      first: emission.number == 1, mark: emission.mark)
            return
        }
        if capacity - used < maxSecondsLength + maxCountLength + 8 + 3 { try flush() }
        if emitTime {
            used += formatSeconds(emission.time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        if showingCount {
            used += formatCount(emission.count, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        // The word's bytes at once (each fits 8), then a TAB over its end.
        let (bytes, length) = emission.mark.packedWord
        buffer.storeBytes(of: bytes.littleEndian, toByteOffset: used, as: UInt64.self)
        used += length
        buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
        used += 1
        try append(emission.line)
        if flushEachLine { try flush() }
    }
}

extension EpisodeMark {
    /// The word's bytes in a little-endian word, and how many there are.
    var packedWord: (UInt64, Int) {
        switch self {
        case .none: (0, 0)
        case .first: (0x7473726966, 5)  // "first"
        case .repeat: (0x746165706572, 6)  // "repeat"
        case .resolved: (0x6465766c6f736572, 8)  // "resolved"
        case .exempt: (0x74706d657865, 6)  // "exempt"
        }
    }
}
