// Key bytes to slot numbers: the one byte-key table of the code. An
// open-addressing table with linear probing over a hash of the key's bytes:
// a lookup hashes exactly the key (no String, no allocation) and compares
// bytes only on a hash match. Forgotten keys are removed with backward-shift
// deletion, so no tombstones accumulate on an endless stream of short-lived
// keys.
//
// Where a slot's key bytes are kept is the table's one choice:
// - `KeyBytes`, a record per slot that a key leaves and the next reuses:
//   the key store's keys (`--key-field`) and the heavy hitters' entries;
// - `PackedKeys`, every key after the last in one buffer, never removed:
//   the distinct keys `--stats` counts, a few bytes each.

/// Where a `ByteKeyTable` keeps each slot's key and hash.
protocol KeyRecords: ~Copyable {
    init()
    func hash(of slot: Int32) -> UInt64
    /// True when `slot` holds exactly `key`.
    func holds(_ key: UnsafeRawBufferPointer, in slot: Int32) -> Bool
    /// Runs `body` on the bytes and hash of the key of `slot`.
    func withKey<R>(of slot: Int32, _ body: (UnsafeRawBufferPointer, UInt64) -> R) -> R
    /// Makes `key` the key of `slot`.
    mutating func store(_ key: UnsafeRawBufferPointer, hash: UInt64, in slot: Int32)
}

/// The key store's table: a record per slot.
typealias KeyTable = ByteKeyTable<KeyBytes>

struct ByteKeyTable<Records: KeyRecords & ~Copyable>: ~Copyable {
    /// Slot numbers, or -1 for an empty bucket. Size is a power of two.
    private var buckets: [Int32]
    /// Per slot: its key's hash and bytes (kept while the slot is in use).
    private var keys = Records()
    private(set) var count = 0

    init() { buckets = Array(repeating: -1, count: 16) }

    /// The slot holding `key`, or nil.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int32? {
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = buckets[i]
            if slot < 0 { return nil }
            if keys.hash(of: slot) == hash && keys.holds(key, in: slot) { return slot }
            i = (i + 1) & mask
        }
    }

    /// Records that `slot` holds `key` (which is not in the table).
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: UInt64, slot: Int32) {
        keys.store(key, hash: hash, in: slot)
        if (count + 1) * 4 > buckets.count * 3 { grow() }
        place(slot: slot, hash: hash)
        count += 1
    }

    /// The hash of the key of an in-use slot.
    func hash(of slot: Int32) -> UInt64 { keys.hash(of: slot) }

    /// The key bytes of an in-use slot.
    func key(of slot: Int32) -> [UInt8] { keys.withKey(of: slot) { bytes, _ in Array(bytes) } }

    /// Runs `body` on the key bytes and hash of an in-use slot, without a copy.
    @inline(__always)
    func withKey<R>(of slot: Int32, _ body: (UnsafeRawBufferPointer, UInt64) -> R) -> R {
        keys.withKey(of: slot, body)
    }

    /// Runs `body` on every slot in the table (`--state`'s snapshot).
    func forEachSlot(_ body: (Int32) -> Void) {
        for slot in buckets where slot >= 0 { body(slot) }
    }

    private mutating func place(slot: Int32, hash: UInt64) {
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        buckets[i] = slot
    }

    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: -1, count: old.count * 2)
        for slot in old where slot >= 0 { place(slot: slot, hash: keys.hash(of: slot)) }
    }
}

extension ByteKeyTable where Records == KeyBytes {
    /// Forgets the key of `slot`.
    mutating func remove(slot: Int32) {
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: keys.hash(of: slot)) & mask
        while buckets[i] != slot { i = (i + 1) & mask }
        // Backward-shift deletion: pull later members of the probe run into
        // the hole when their home bucket allows it.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            let other = buckets[j]
            if other < 0 { break }
            let home = Int(truncatingIfNeeded: keys.hash(of: other)) & mask
            // `other` may move to `hole` unless its home lies cyclically in (hole, j].
            let distanceToHole = (j - home) & mask
            let distanceHoleToJ = (j - hole) & mask
            if distanceToHole >= distanceHoleToJ {
                buckets[hole] = other
                hole = j
            }
        }
        buckets[hole] = -1
        count -= 1
        keys.remove(slot)
    }
}
