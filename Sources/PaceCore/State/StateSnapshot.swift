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
    /// Each key's open episode (`--resolve-after`), if it has one: when it
    /// resolves, and where its last line is in `episodeLines`.
    package private(set) var episodes: [SavedEpisode?] = []
    /// The open episodes' last lines, one after another.
    package private(set) var episodeLines: [UInt8] = []

    package init() {}

    package var count: Int { keyEnds.count }

    package mutating func reserve(_ keys: Int) {
        keyEnds.reserveCapacity(keys)
        states.reserveCapacity(keys)
        owed.reserveCapacity(keys)
        episodes.reserveCapacity(keys)
    }

    package mutating func append(key: UnsafeRawBufferPointer, state: SavedState?, owed count: Int64,
                                 episode: (resolveAt: Instant, lastLine: UnsafeRawBufferPointer)? = nil) {
        keyBytes.append(contentsOf: key)
        keyEnds.append(keyBytes.count)
        states.append(state)
        owed.append(count)
        if let episode {
            let start = episodeLines.count
            episodeLines.append(contentsOf: episode.lastLine)
            episodes.append(SavedEpisode(resolveAt: episode.resolveAt, line: start..<episodeLines.count))
        } else {
            episodes.append(nil)
        }
    }

    package mutating func append(key: [UInt8], state: SavedState?, owed count: Int64,
                                 episode: (resolveAt: Instant, lastLine: [UInt8])? = nil) {
        key.withUnsafeBytes { key in
            guard let episode else { return append(key: key, state: state, owed: count) }
            episode.lastLine.withUnsafeBytes { append(key: key, state: state, owed: count, episode: (episode.resolveAt, $0)) }
        }
    }

    /// Runs `body` on the bytes of key `index`.
    package func withKey<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = index == 0 ? 0 : keyEnds[index - 1]
        return keyBytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<keyEnds[index]])) }
    }

    /// Adds `extra`'s counts (`--exec`'s lines never run) to what its keys
    /// owe: to a key's entry, or, for a key without one, as an idle key
    /// that owes (appended in byte order, so a save is the same each time).
    package mutating func addOwed(_ extra: [[UInt8]: Int64]) {
        var left = extra
        for index in 0..<count where !left.isEmpty {
            if let more = withKey(index, { left.removeValue(forKey: Array($0)) }) { owed[index] += more }
        }
        for (key, more) in left.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            key.withUnsafeBytes { append(key: $0, state: nil, owed: more) }
        }
    }

    /// Runs `body` on the last line of the episode of key `index`, which has one.
    package func withEpisodeLine<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        episodeLines.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[episodes[index]!.line])) }
    }

    /// The bytes of key `index` (tests).
    package func key(_ index: Int) -> [UInt8] { withKey(index) { Array($0) } }
}

/// An open episode as saved: when it resolves, and where its key's last line
/// is in the snapshot's `episodeLines`.
package struct SavedEpisode: Equatable, Sendable {
    package var resolveAt: Instant
    package var line: Range<Int>
}
