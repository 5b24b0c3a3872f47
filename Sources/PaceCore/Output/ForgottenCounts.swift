// `--count` for keys the key table forgot. A key's discards since its last
// output line stay with its slot while the key is active or on the idle list;
// when the idle list pushes a key out of the table while it still owes a
// count, the key's bytes and the count move here, so its next output line
// still counts them (SPEC's Accounting). To keep memory bounded, at most
// `capacity` keys are remembered, the least recently seen forgotten first;
// the discards of a key forgotten here are never counted, and `uncounted`
// says how many.
//
// Entries are numbered like slots and found through a KeyTable; a doubly
// linked list through entry numbers keeps them oldest first.

/// A class: it owns a (noncopyable) key table; the counting layer holds the
/// one reference.
final class ForgottenCounts {
    /// SPEC's bound: keys remembered at most.
    static let defaultCapacity = 1_000_000

    let capacity: Int
    private var table = KeyTable()
    /// Per entry: the count it owes, and its neighbours (older, newer).
    private var counts: [Int64] = []
    private var older: [Int32] = []
    private var newer: [Int32] = []
    private var oldest: Int32 = -1
    private var newest: Int32 = -1
    private var free: [Int32] = []
    /// Discards of keys forgotten here, never counted.
    private(set) var uncounted: Int64 = 0

    init(capacity: Int = ForgottenCounts.defaultCapacity) {
        precondition(capacity > 0, "ForgottenCounts: capacity must be positive")
        self.capacity = capacity
    }

    /// Keys remembered.
    var count: Int { table.count }

    /// Remembers that `key` (not remembered yet) owes `owed` discards; when
    /// that makes one too many, the oldest is forgotten.
    func remember(_ key: UnsafeRawBufferPointer, hash: UInt64, owed: Int64) {
        if table.count == capacity {
            let victim = oldest
            uncounted += counts[Int(victim)]
            unlink(victim)
            table.remove(slot: victim)
            free.append(victim)
        }
        let entry: Int32
        if let reused = free.popLast() {
            entry = reused
        } else {
            entry = Int32(counts.count)
            counts.append(0)
            older.append(-1)
            newer.append(-1)
        }
        counts[Int(entry)] = owed
        table.insert(key, hash: hash, slot: entry)
        older[Int(entry)] = newest
        newer[Int(entry)] = -1
        if newest >= 0 { newer[Int(newest)] = entry } else { oldest = entry }
        newest = entry
    }

    /// The count `key` owes, which it takes back (0 when not remembered).
    @inline(__always)
    func take(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int64 {
        guard table.count > 0, let entry = table.find(key, hash: hash) else { return 0 }
        let owed = counts[Int(entry)]
        unlink(entry)
        table.remove(slot: entry)
        free.append(entry)
        return owed
    }

    private func unlink(_ entry: Int32) {
        let (o, n) = (older[Int(entry)], newer[Int(entry)])
        if o >= 0 { newer[Int(o)] = n } else { oldest = n }
        if n >= 0 { older[Int(n)] = o } else { newest = o }
    }
}
