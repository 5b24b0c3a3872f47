// The byte helpers every room shares: the empty byte string, equality of two
// byte strings a word at a time, and the one 64-bit hash of a byte string (the key table's, the
// distinct-key count's, the heavy hitters'). Fields compares member names
// with the same equality.

extension UnsafeRawBufferPointer {
    /// No bytes: the key of an unkeyed run, a missing field. (Computed, not
    /// a stored static: the per-line path reads it, and a stored one would
    /// be initialised lazily, behind a check at every read.)
    @inline(__always)
    package static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
}

/// Whether `a` and `b` hold the same bytes.
@inline(__always)
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    let n = a.count
    guard n == b.count else { return false }
    guard n > 0, let p = a.baseAddress, let q = b.baseAddress else { return true }
    return memcmpBytes(p, q, n)
}

/// Whether the `n` bytes at `a` and at `b` are the same, a word at a time.
/// The last 1 to 7 bytes are never read one by one (a 6-byte host name
/// was a loop of six compares on every keyed line): past 8 bytes, the last
/// word overlaps the one before; under 8, two overlapping 4-byte words or,
/// under 4, the first, middle and last byte cover them all, as in `hashBytes`.
@inline(__always)
func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    if n >= 8 {
        var i = 0
        while i &+ 8 <= n {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i &+= 8
        }
        return i == n || a.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
    if n >= 4 {
        return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
            && a.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            == b.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
    }
    if n > 0 {
        return a.load(as: UInt8.self) == b.load(as: UInt8.self)
            && a.load(fromByteOffset: n >> 1, as: UInt8.self) == b.load(fromByteOffset: n >> 1, as: UInt8.self)
            && a.load(fromByteOffset: n &- 1, as: UInt8.self) == b.load(fromByteOffset: n &- 1, as: UInt8.self)
    }
    return true
}

/// A fast 64-bit hash of a byte string. Not cryptographic: keys come from
/// the user's own input stream. Each step is a folded multiply (the high and
/// low halves of a full 128-bit product, xored), so a bit of its operands
/// reaches every bit of the result: the 8-byte words go in one by one, then
/// the last 0 to 7 bytes and, in the other operand of the same multiply, the
/// length, and a last fold spreads that over all 64 bits. (The length must
/// not share bits with the bytes: xored into the tail word, `2` and `12`
/// hashed alike.)
@inline(__always)
func hashBytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    let n = bytes.count
    var h: UInt64 = 0x2545_F491_4F6C_DD1D
    var tail: UInt64 = 0
    if let base = bytes.baseAddress {
        var i = 0
        while i + 8 <= n {
            h = foldedMultiply(h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self), 0x9E37_79B9_7F4A_7C15)
            i += 8
        }
        // The last 0 to 7 bytes in at most two loads: 4 to 7 bytes are two
        // overlapping 4-byte words, 1 to 3 bytes the first, middle and last
        // byte. Given the length, the word tells the bytes apart.
        let r = n - i
        if r >= 4 {
            tail = UInt64(base.loadUnaligned(fromByteOffset: i, as: UInt32.self))
                | UInt64(base.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)) << 32
        } else if r > 0 {
            tail = UInt64(base.load(fromByteOffset: i, as: UInt8.self))
                | UInt64(base.load(fromByteOffset: i + r / 2, as: UInt8.self)) << 8
                | UInt64(base.load(fromByteOffset: n - 1, as: UInt8.self)) << 16
        }
    }
    h = foldedMultiply(h ^ tail ^ 0xA076_1D64_78BD_642F, UInt64(truncatingIfNeeded: n) ^ 0xE703_7ED1_A0B4_28DB)
    return foldedMultiply(h, 0x8EBC_6AF0_9C88_C6E3)
}

@inline(__always)
private func foldedMultiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let product = a.multipliedFullWidth(by: b)
    return product.high ^ product.low
}
