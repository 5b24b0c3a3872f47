// The key table's per-slot record: a key's hash and its bytes. A key of up to
// 16 bytes (a host name, a pid, a file name's last part) is stored in the
// record itself; a longer one in a buffer of exactly its size. Each record is
// 32 bytes, so a million active keys cost 32 MB here, where a malloc'd buffer
// per key (at least 128 bytes, plus malloc's own) cost five times that.

struct KeyBytes: KeyRecords, ~Copyable {
    struct Record {
        var hash: UInt64 = 0
        /// The bytes of a short key, zero-padded; for a long key, `first`
        /// is the address of its buffer.
        var first: UInt64 = 0
        var second: UInt64 = 0
        var count: Int = 0
    }

    /// Keys up to this long are stored inline.
    static var inlineCapacity: Int { 16 }
    /// Where inline bytes start in a record (`first`, then `second`).
    /// (A constant, not a lazily initialised one: every key comparison
    /// reads it. `init` checks it against the layout.)
    private static var inlineOffset: Int { 8 }

    private var records = SlotArray(empty: Record())

    init() {
        precondition(MemoryLayout<Record>.offset(of: \Record.first) == Self.inlineOffset, "KeyBytes: record layout")
    }

    deinit {
        records.forEach { record in
            if record.count > Self.inlineCapacity { UnsafeMutableRawPointer(bitPattern: UInt(record.first))?.deallocate() }
        }
    }

    @inline(__always)
    func hash(of slot: Int32) -> UInt64 { records[Int(slot)].hash }

    /// True when `slot` holds exactly `key`.
    @inline(__always)
    func holds(_ key: UnsafeRawBufferPointer, in slot: Int32) -> Bool {
        let record = records.pointer(to: Int(slot))
        let n = record.pointee.count
        guard n == key.count else { return false }
        if n == 0 { return true }
        let stored = n > Self.inlineCapacity ? UnsafeRawPointer(bitPattern: UInt(record.pointee.first))!
                                             : UnsafeRawPointer(record) + Self.inlineOffset
        return memcmpBytes(stored, key.baseAddress!, n)
    }

    /// Runs `body` on the bytes and hash of the key of `slot`.
    @inline(__always)
    func withKey<R>(of slot: Int32, _ body: (UnsafeRawBufferPointer, UInt64) -> R) -> R {
        let record = records.pointer(to: Int(slot))
        let n = record.pointee.count
        let stored = n > Self.inlineCapacity ? UnsafeRawPointer(bitPattern: UInt(record.pointee.first))!
                                             : UnsafeRawPointer(record) + Self.inlineOffset
        return body(UnsafeRawBufferPointer(start: n == 0 ? nil : stored, count: n), record.pointee.hash)
    }

    /// Makes `key` the key of `slot`.
    mutating func store(_ key: UnsafeRawBufferPointer, hash: UInt64, in slot: Int32) {
        let s = Int(slot)
        records.reserve(s)
        let record = records.pointer(to: s)
        clear(record)
        record.pointee.hash = hash
        record.pointee.count = key.count
        guard key.count > 0 else { return }
        if key.count > Self.inlineCapacity {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: key.count, alignment: 1)
            buffer.copyMemory(from: key.baseAddress!, byteCount: key.count)
            record.pointee.first = UInt64(UInt(bitPattern: buffer))
        } else {
            (UnsafeMutableRawPointer(record) + Self.inlineOffset).copyMemory(from: key.baseAddress!, byteCount: key.count)
        }
    }

    /// Forgets the key of `slot` (its buffer, if long, is freed).
    mutating func remove(_ slot: Int32) { clear(records.pointer(to: Int(slot))) }

    private func clear(_ record: UnsafeMutablePointer<Record>) {
        if record.pointee.count > Self.inlineCapacity {
            UnsafeMutableRawPointer(bitPattern: UInt(record.pointee.first))?.deallocate()
        }
        record.pointee = Record()
    }
}

/// Keys packed one after another in one buffer, for a set that only grows
/// (the distinct keys of `--stats`): per key its hash, where its bytes end,
/// and its bytes, with no record to reuse. Slots are given in order, 0 up.
struct PackedKeys: KeyRecords, ~Copyable {
    private var hashes: [UInt64] = []
    /// Where each key's bytes end in `bytes` (each starts where the one
    /// before it ends).
    private var ends: [Int] = []
    private var bytes: [UInt8] = []

    init() {}

    func hash(of slot: Int32) -> UInt64 { hashes[Int(slot)] }

    func holds(_ key: UnsafeRawBufferPointer, in slot: Int32) -> Bool {
        withKey(of: slot) { stored, _ in
            stored.count == key.count && (key.count == 0 || memcmpBytes(stored.baseAddress!, key.baseAddress!, key.count))
        }
    }

    func withKey<R>(of slot: Int32, _ body: (UnsafeRawBufferPointer, UInt64) -> R) -> R {
        let s = Int(slot)
        let start = s == 0 ? 0 : ends[s - 1]
        return bytes.withUnsafeBytes { all in
            body(UnsafeRawBufferPointer(rebasing: all[start..<ends[s]]), hashes[s])
        }
    }

    mutating func store(_ key: UnsafeRawBufferPointer, hash: UInt64, in slot: Int32) {
        precondition(Int(slot) == hashes.count, "PackedKeys: slots are given in order")
        hashes.append(hash)
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
    }
}
