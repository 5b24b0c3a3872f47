// The one buffer an extractor builds values in: a composite key's encoding,
// or a string decoded from its escapes. It is reused line after line and
// grows only when a line needs more than any line before, so the per-line
// path allocates nothing. A class, so that the extractors that own one can
// hand out views into it from non-mutating calls.

final class ByteScratch {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// What was built since the last `count = 0`: valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Room for `extra` more bytes.
    @inline(__always)
    func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends a byte there is room for (see `reserve`).
    @inline(__always)
    func appendReserved(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let source = bytes.baseAddress { (base + count).copyMemory(from: source, byteCount: bytes.count) }
        count &+= bytes.count
    }

    /// A length or count, as 8 bytes (little-endian), at the end.
    @inline(__always)
    func appendLength(_ n: Int) {
        reserve(8)
        storeLength(n, at: count)
        count &+= 8
    }

    @inline(__always)
    func storeLength(_ n: Int, at offset: Int) {
        (base + offset).storeBytes(of: UInt64(n).littleEndian, as: UInt64.self)
    }
}
