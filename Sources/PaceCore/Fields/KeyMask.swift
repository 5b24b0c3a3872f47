// A masked key item (`5-~`, `msg~`): SPEC's rule, plain on purpose. In a
// value, every maximal run of ASCII letters, digits, `_` and `.` that holds
// a digit becomes one `#`; every other byte (blanks, punctuation, bytes of
// 0x80 and above) is a separator and is kept. So `user 4711 failed from
// 10.0.0.7 at 12:03:44` is `user # failed from # at #:#:#`, and `s3` or
// `ec2` are merged as well (the rule does not know words).
//
// The masked value is never longer than the value, so it is written straight
// into the extractor's scratch, which is reused line after line.

/// Whether `b` belongs to a run: an ASCII letter, a digit, `_` or `.`.
/// Two 64-bit masks, one per half of ASCII.
@inline(__always)
func isMaskRunByte(_ b: UInt8) -> Bool {
    // Bytes 0-63: `.` (46) and `0`-`9` (48-57).
    let low: UInt64 = (1 << 46) | (0x3FF << 48)
    // Bytes 64-127: `A`-`Z` (65-90), `_` (95), `a`-`z` (97-122).
    let high: UInt64 = (0x3FF_FFFF << 1) | (1 << 31) | (0x3FF_FFFF << 33)
    if b < 64 { return (low >> UInt64(b)) & 1 != 0 }
    if b < 128 { return (high >> UInt64(b &- 64)) & 1 != 0 }
    return false
}

extension ByteScratch {
    /// Appends `value` masked; returns the number of bytes appended.
    @discardableResult
    func appendMasked(_ value: UnsafeRawBufferPointer) -> Int {
        reserve(value.count)
        let before = count
        let n = value.count
        var i = 0
        while i < n {
            let b = value[i]
            guard isMaskRunByte(b) else {
                appendReserved(b)
                i &+= 1
                continue
            }
            let start = i
            var digit = false
            while i < n, isMaskRunByte(value[i]) {
                if value[i] &- UInt8(ascii: "0") < 10 { digit = true }
                i &+= 1
            }
            if digit {
                appendReserved(UInt8(ascii: "#"))
            } else {
                for j in start..<i { appendReserved(value[j]) }
            }
        }
        return count - before
    }
}
