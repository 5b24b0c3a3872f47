// JSON's scalars for the walk (JSONMember.swift): a number, `true`,
// `false` or `null`, checked as RFC 8259 writes them and no further; what
// follows a scalar is the caller's to check.

extension JSONScanner {
    /// A number, `true`, `false` or `null` at `i`; false when there is none.
    /// What follows it is the caller's to check.
    @inline(__always)
    mutating func scalar() -> Bool {
        switch byte {
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    @inline(__always)
    mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i &+ n <= end else { return false }
        for k in 0..<n where byte(at: i &+ k) != word.utf8Start[k] { return false }
        i &+= n
        return true
    }

    /// RFC 8259's number at `i`; false when there is none.
    @inline(__always)
    mutating func number() -> Bool {
        let after = numberEnd(from: i)
        guard after >= 0 else { return false }
        i = after
        return true
    }

    /// Where the number at `j` ends, or -1 when there is none. RFC 8259's
    /// number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    /// Positions go in and out by value: as a mutating step it kept the
    /// walk's scanner in memory, storing its position at every digit run.
    @inline(__always)
    func numberEnd(from j: Int) -> Int {
        var k = j
        if byte(at: k) == UInt8(ascii: "-") { k &+= 1 }
        if byte(at: k) == UInt8(ascii: "0") {
            k &+= 1
        } else {
            let after = digitsEnd(from: k)
            guard after > k else { return -1 }
            k = after
        }
        if byte(at: k) == UInt8(ascii: ".") {
            let after = digitsEnd(from: k &+ 1)
            guard after > k &+ 1 else { return -1 }
            k = after
        }
        if byte(at: k) | 0x20 == UInt8(ascii: "e") {
            k &+= 1
            let sign = byte(at: k)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { k &+= 1 }
            let after = digitsEnd(from: k)
            guard after > k else { return -1 }
            k = after
        }
        return k
    }

    /// Where the digits from `j` end (`j` when there are none), eight at a
    /// time while they last: timestamps and counters are long runs of them.
    /// A byte is a digit when its high nibble is 3 and adding 6 keeps it so;
    /// a carry out of a byte that is not a digit can only spoil the bytes
    /// above it.
    @inline(__always)
    func digitsEnd(from j: Int) -> Int {
        var k = j
        let highNibbles = everyByte &* 0xF0, threes = everyByte &* 0x30
        while k &+ 8 <= end {
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: k, as: UInt64.self))
            let other = (x & highNibbles ^ threes) | ((x &+ everyByte &* 0x06) & highNibbles ^ threes)
            // The high bit of each byte of `other` that is not zero.
            let stops = ((other & (everyByte &* 0x7F)) &+ everyByte &* 0x7F | other) & (everyByte &* 0x80)
            if stops != 0 { return k &+ stops.trailingZeroBitCount >> 3 }
            k &+= 8
        }
        while byte(at: k) &- UInt8(ascii: "0") < 10 { k &+= 1 }
        return k
    }
}
