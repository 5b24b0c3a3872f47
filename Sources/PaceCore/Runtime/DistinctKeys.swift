// `--stats`' count of distinct keys: every key seen, counted exactly. The
// key table forgets idle keys, so it cannot say how many keys a run has seen;
// this set remembers each one. A hash alone is not enough (two keys that hash
// alike would count once), so it keeps each key's bytes, in one flat buffer,
// and compares them on a hash match, as the key table does.
//
// Only the scheduler's path for a key new to the key table calls it, never
// the per-line path. It grows with the keys ever seen; SPEC bounds it at
// 1,000,000 keys with an estimate beyond, which is to go here, behind
// `insert` and `count`.

struct DistinctKeys {
    /// Entry numbers, or -1 for an empty bucket. Size is a power of two.
    private var buckets = [Int32](repeating: -1, count: 16)
    /// Per entry: its hash, and where its bytes end in `bytes` (an entry's
    /// bytes start where the previous one's end).
    private var hashes: [UInt64] = []
    private var ends: [Int] = []
    private var bytes: [UInt8] = []

    /// The number of distinct keys inserted.
    var count: Int64 { Int64(hashes.count) }

    /// Adds `key` (whose `hashBytes` is `hash`); true if it was not there yet.
    @discardableResult
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
        let mask = buckets.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = buckets[i]
            if entry < 0 { break }
            if hashes[Int(entry)] == hash && holds(entry: Int(entry), key) { return false }
            i = (i + 1) & mask
        }
        buckets[i] = Int32(hashes.count)
        hashes.append(hash)
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        if hashes.count * 4 > buckets.count * 3 { grow() }
        return true
    }

    private func holds(entry: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let start = entry == 0 ? 0 : ends[entry - 1]
        guard ends[entry] - start == key.count else { return false }
        if key.count == 0 { return true }
        return bytes.withUnsafeBytes { memcmpBytes($0.baseAddress! + start, key.baseAddress!, key.count) }
    }

    private mutating func grow() {
        buckets = [Int32](repeating: -1, count: buckets.count * 2)
        let mask = buckets.count - 1
        for (entry, hash) in hashes.enumerated() {
            var i = Int(truncatingIfNeeded: hash) & mask
            while buckets[i] >= 0 { i = (i + 1) & mask }
            buckets[i] = Int32(entry)
        }
    }
}
