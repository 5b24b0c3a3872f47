// Reading runs of ASCII digits eight bytes at a time. A replay line's
// timestamp is mostly digits (`1795953600.000569` is 16 of 17 bytes), and a
// loop that checks, multiplies and tests for overflow once per digit was the
// largest cost of a replay: about a quarter of its instructions. Here one
// unaligned 64-bit load finds how many digits start at a position and
// converts up to eight of them with three multiplications, with no overflow
// to check (eight digits are below 10^8).
//
// Bytes are numbered as they lie in memory: on a little-endian machine byte
// k of the text is bits 8k..8k+7 of the loaded word, and the first digit,
// the most significant, is the lowest byte.

/// How many digits `readDigits` reads at most.
let digitRunWord = 8

/// Per byte of `word`, zero where the byte is an ASCII digit and nonzero
/// elsewhere; exact up to and including the first non-digit byte.
///
/// A digit is 0x30...0x39: its high nibble is 3, and adding 6 leaves the high
/// nibble 3 (0x36...0x3F), where a low nibble of 10 or more carries into 4.
/// So (high nibble of the byte) and (high nibble of byte + 6, moved down into
/// the low nibble) make 0x33 for a digit and something else for any other
/// byte. The addition can carry out of a byte only from 0xFA and up, a
/// non-digit, so bytes before the first non-digit are never disturbed.
@inline(__always)
func nonDigitMask(_ word: UInt64) -> UInt64 {
    let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
    let high = word & nibbles
    let carried = (word &+ 0x0606_0606_0606_0606) & nibbles
    return (high | (carried >> 4)) ^ 0x3333_3333_3333_3333
}

/// The value of eight decimal digits, one per byte (each 0...9), the lowest
/// byte the most significant.
///
/// Three steps, each joining neighbours into lanes twice as wide: byte pairs
/// (d0 d1) into 16-bit lanes d0 * 10 + d1, then lane pairs into 32-bit lanes
/// p0 * 100 + p1, then the two halves q0 * 10000 + q1. Multiplying the whole
/// word by 10 (100, 10000) scales the lower neighbour in every lane at once,
/// the shift brings the upper neighbour down onto it, and the mask drops the
/// lanes that mixed in their own upper neighbour. No lane overflows: 99,
/// 9999 and 99999999 fit in 8, 16 and 32 bits.
@inline(__always)
func eightDigitValue(_ digits: UInt64) -> UInt64 {
    let pairs = (digits &* 10 &+ (digits >> 8)) & 0x00FF_00FF_00FF_00FF
    let quads = (pairs &* 100 &+ (pairs >> 16)) & 0x0000_FFFF_0000_FFFF
    return (quads &* 10_000 &+ (quads >> 32)) & 0xFFFF_FFFF
}

/// The digits that start at `text[i]`, at most `digitRunWord` of them: how
/// many, and their value.
@inline(__always)
func readDigits(_ text: UnsafeRawBufferPointer, at i: Int) -> (value: UInt64, count: Int) {
    guard let base = text.baseAddress else { return (0, 0) }
    return readDigits(base, at: i, end: text.count)
}

/// `readDigits` on the bytes `base[..<end]`: the parsers' own form, which
/// spares them the buffer's optional base address on every access.
@inline(__always)
func readDigits(_ base: UnsafeRawPointer, at i: Int, end: Int) -> (value: UInt64, count: Int) {
    if i &+ digitRunWord <= end {
        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let count = nonDigitMask(word).trailingZeroBitCount &>> 3
        if count == 0 { return (0, 0) }
        // XOR, unlike subtraction, cannot borrow across bytes: digits become
        // 0...9 and the other bytes, whatever they become, are shifted out
        // (the shift puts `count` digits at the top with zeros before them).
        let digits = (word ^ 0x3030_3030_3030_3030) &<< UInt64(8 &* (digitRunWord &- count))
        return (eightDigitValue(digits), count)
    }
    // Near the end of the text a word would run past it: one byte at a time.
    var value: UInt64 = 0
    var count = 0
    let stop = min(end, i &+ digitRunWord)
    var j = i
    while j < stop {
        let d = base.load(fromByteOffset: j, as: UInt8.self) &- UInt8(ascii: "0")
        if d >= 10 { break }
        value = value &* 10 &+ UInt64(d)
        count &+= 1
        j &+= 1
    }
    return (value, count)
}

/// 10^k for k in 0...9 (a table the compiler builds from the switch).
@inline(__always)
func powerOfTen(_ k: Int) -> UInt64 {
    switch k {
    case 0: return 1
    case 1: return 10
    case 2: return 100
    case 3: return 1_000
    case 4: return 10_000
    case 5: return 100_000
    case 6: return 1_000_000
    case 7: return 10_000_000
    case 8: return 100_000_000
    case 9: return 1_000_000_000
    default: preconditionFailure("powerOfTen: \(k) is outside 0...9")
    }
}
