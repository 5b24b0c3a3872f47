// Byte strings kept by slot number: the line each key holds back, and each
// key's own bytes in the key table. Every slot owns one malloc'd buffer that
// its next string reuses, so keeping a line is a memcpy. As `[UInt8]` per
// slot, keeping a debounced line (every line, unkeyed) cost about 200
// instructions: removeAll(keepingCapacity:), a generic append(contentsOf:),
// and uniqueness checks of the outer and the inner array.
//
// It is a value with copy-on-write, like the arrays it replaces, so that the
// Scheduler stays a value: a copy of it never sees the other's lines change.

import Glibc

struct SlotBytes {
    /// One slot's buffer.
    struct Buffer {
        var base: UnsafeMutableRawPointer?
        var count = 0
        var capacity = 0
    }

    /// The buffers, freed with the last copy that uses them.
    final class Storage {
        var buffers: UnsafeMutablePointer<Buffer>
        /// Slots that have an entry (0..<slotCount).
        var slotCount = 0
        var allocated: Int

        init(allocated: Int) {
            self.allocated = allocated
            buffers = .allocate(capacity: allocated)
        }

        deinit {
            for i in 0..<slotCount { free(buffers[i].base) }
            buffers.deallocate()
        }

        func copy() -> Storage {
            let other = Storage(allocated: allocated)
            for i in 0..<slotCount {
                let buffer = buffers[i]
                var copied = Buffer()
                if buffer.count > 0 {
                    copied.base = malloc(buffer.count)!
                    copied.base!.copyMemory(from: buffer.base!, byteCount: buffer.count)
                    copied.count = buffer.count
                    copied.capacity = buffer.count
                }
                (other.buffers + i).initialize(to: copied)
            }
            other.slotCount = slotCount
            return other
        }

        func grow(toInclude slot: Int) {
            if slot >= allocated {
                let newAllocated = max(allocated * 2, slot + 1)
                let bigger = UnsafeMutablePointer<Buffer>.allocate(capacity: newAllocated)
                bigger.moveInitialize(from: buffers, count: slotCount)
                buffers.deallocate()
                buffers = bigger
                allocated = newAllocated
            }
            (buffers + slotCount).initialize(repeating: Buffer(), count: slot + 1 - slotCount)
            slotCount = slot + 1
        }
    }

    /// A buffer larger than this is freed when its slot lets go of its
    /// string, so one huge line does not stay allocated for good.
    static let keptCapacity = 64 * 1024
    /// The least a buffer is allocated with: most lines fit at once.
    static let minimumCapacity = 128

    private var storage = Storage(allocated: 16)

    /// Makes `bytes` the string of `slot` (copied).
    @inline(__always)
    mutating func store(_ bytes: UnsafeRawBufferPointer, in slot: Int32) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let s = Int(slot)
        if s >= storage.slotCount { storage.grow(toInclude: s) }
        let buffer = storage.buffers + s
        let n = bytes.count
        if n > buffer.pointee.capacity { Self.reallocate(buffer, toHold: n) }
        if n > 0 { buffer.pointee.base!.copyMemory(from: bytes.baseAddress!, byteCount: n) }
        buffer.pointee.count = n
    }

    /// Forgets the string of `slot` (keeping a buffer of ordinary size).
    mutating func clear(_ slot: Int32) {
        let s = Int(slot)
        guard s < storage.slotCount else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let buffer = storage.buffers + s
        buffer.pointee.count = 0
        if buffer.pointee.capacity > Self.keptCapacity {
            free(buffer.pointee.base)
            buffer.pointee = Buffer()
        }
    }

    /// The string of `slot`, valid until this value is next changed.
    @inline(__always)
    func withBytes<R, E: Error>(of slot: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let s = Int(slot)
        guard s < storage.slotCount else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let buffer = storage.buffers[s]
        return try withExtendedLifetime(storage) { () throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
        }
    }

    private static func reallocate(_ buffer: UnsafeMutablePointer<Buffer>, toHold n: Int) {
        let capacity = max(n, minimumCapacity, min(buffer.pointee.capacity * 2, keptCapacity))
        free(buffer.pointee.base)
        guard let base = malloc(capacity) else { fatalError("pace: out of memory (\(capacity) bytes)") }
        buffer.pointee = Buffer(base: base, count: 0, capacity: capacity)
    }
}
