// What a save writes and a load reads: every key pace keeps something of,
// with its saved policy state and the discards it owes. Flat arrays, so that
// a million keys are a few allocations, not a million: the keys' bytes one
// after another, and per key where its bytes end.
//
// The snapshot is a copy, taken on the loop between two reads: the periodic
// save hands it to a thread (StateKeeper.swift) and the loop goes on.

package struct StateSnapshot: Equatable, Sendable {
    /// Every key's bytes, one after another.
    package private(set) var keyBytes: [UInt8] = []
    /// Where each key's bytes end in `keyBytes`.
    package private(set) var keyEnds: [Int] = []
    /// Each key's policy state; nil for a key that is idle but owes.
    package private(set) var states: [SavedState?] = []
    /// Each key's discards since its last output line.
    package private(set) var owed: [Int64] = []

    package init() {}

    package var count: Int { keyEnds.count }

    package mutating func reserve(_ keys: Int) {
        keyEnds.reserveCapacity(keys)
        states.reserveCapacity(keys)
        owed.reserveCapacity(keys)
    }

    package mutating func append(key: UnsafeRawBufferPointer, state: SavedState?, owed count: Int64) {
        keyBytes.append(contentsOf: key)
        keyEnds.append(keyBytes.count)
        states.append(state)
        owed.append(count)
    }

    package mutating func append(key: [UInt8], state: SavedState?, owed count: Int64) {
        key.withUnsafeBytes { append(key: $0, state: state, owed: count) }
    }

    /// Runs `body` on the bytes of key `index`.
    package func withKey<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = index == 0 ? 0 : keyEnds[index - 1]
        return keyBytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<keyEnds[index]])) }
    }

    /// The bytes of key `index` (tests).
    package func key(_ index: Int) -> [UInt8] { withKey(index) { Array($0) } }
}
