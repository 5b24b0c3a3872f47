// `--then-every M`: of a key's discards, every Mth in a row goes out instead
// (SPEC, Semantics). The run of discards since a key's last output line is
// exactly what the counting layer keeps for `--count` (Counting.swift): the
// policy's discards only (`--on-busy`'s are the command runner's), given
// back to a key that left the table and returns, within the same bound. So
// this wrapper keeps nothing of its own: it sits on a counting sink and
// asks it, at each discard, whether the key's run would reach M. A run
// without `--then-every` has no such wrapper, and the scheduler's question
// compiles away (`thinsDiscards` is false for every other sink).

/// A counting sink (`Counted`, or `--exec`'s) that lets every Mth discard
/// of a key in a row through.
package struct ThenEvery<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    package var base: Base
    private let every: Int64

    /// `base` counts (`Base.counts`): its owed counts are the runs.
    package init(_ base: consuming Base, every: Int64) {
        precondition(Base.counts && every >= 2, "ThenEvery: needs a counting sink and M >= 2")
        self.base = base
        self.every = every
    }

    /// The wrapped sink, handed back at the end of the run.
    package consuming func take() -> Base { base }

    package static var counts: Bool { true }
    package static var readsKeys: Bool { Base.readsKeys }
    package static var thinsDiscards: Bool { true }

    @inline(__always)
    package func letsThrough(discardOf slot: Int32) -> Bool { base.owed(slot: slot) &+ 1 >= every }

    @inline(__always)
    package mutating func emit(_ emission: Emission) throws(OutputError) { try base.emit(emission) }
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
    package mutating func flush() throws(OutputError) { try base.flush() }

    // `--resolve-after` (the marking layer sits on this one) and `--state`.
    package mutating func emitMarked(_ emission: Emission, showingCount: Bool) throws(OutputError) {
        try base.emitMarked(emission, showingCount: showingCount)
    }
    package func owed(slot: Int32) -> Int64 { base.owed(slot: slot) }
    package mutating func setOwed(slot: Int32, _ count: Int64) { base.setOwed(slot: slot, count) }
    package func forEachForgotten(_ body: (UnsafeRawBufferPointer, Int64) -> Void) { base.forEachForgotten(body) }
    package mutating func rememberForgotten(_ key: UnsafeRawBufferPointer, hash: UInt64, owed count: Int64) {
        base.rememberForgotten(key, hash: hash, owed: count)
    }
}
