// The bytes a sink writes itself: a line copied into its buffer, and the
// prefixes `--emit-time` and `--count` put before it.

/// Copies `count` bytes between two regions that do not overlap. A line of
/// up to 128 bytes is copied inline, in 16-byte words (the last one
/// overlapping the one before), never reading or writing outside the two
/// regions: for lines of log size the call to memmove through the PLT cost
/// more than the copy did, and a run that writes most of its lines paid it
/// for each.
@inline(__always)
func copyBytes(to target: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count n: Int) {
    typealias Word = SIMD16<UInt8>
    if n >= 16 {
        guard n <= 128 else {
            target.copyMemory(from: source, byteCount: n)
            return
        }
        var i = 0
        while i &+ 16 < n {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: i, as: Word.self), toByteOffset: i, as: Word.self)
            i &+= 16
        }
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: n &- 16, as: Word.self), toByteOffset: n &- 16,
                          as: Word.self)
    } else if n >= 8 {
        let head = source.loadUnaligned(as: UInt64.self), tail = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        target.storeBytes(of: head, as: UInt64.self)
        target.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
    } else if n >= 4 {
        let head = source.loadUnaligned(as: UInt32.self), tail = source.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        target.storeBytes(of: head, as: UInt32.self)
        target.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
    } else {
        var i = 0
        while i < n {
            target.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
            i &+= 1
        }
    }
}

/// The longest `formatCount` output: `9223372036854775807`.
let maxCountLength = 19

/// Writes a count (>= 0) in decimal; returns the bytes written.
@inline(__always)
func formatCount(_ count: Int64, into out: UnsafeMutableRawPointer) -> Int {
    var value = UInt64(max(count, 0))
    var length = 1
    var scale: UInt64 = 10
    while length < maxCountLength && value >= scale {
        length += 1
        scale &*= 10
    }
    var i = length
    repeat {
        i -= 1
        out.storeBytes(of: UInt8(value % 10) + UInt8(ascii: "0"), toByteOffset: i, as: UInt8.self)
        value /= 10
    } while i > 0
    return length
}

/// The longest `formatSeconds` output: `-9223372036.854775`.
let maxSecondsLength = 20

/// Writes `time` as seconds with exactly 6 decimals, truncated (floor) from
/// nanoseconds, `-` before a negative time; returns the bytes written.
@inline(__always)
package func formatSeconds(_ time: Instant, into out: UnsafeMutableRawPointer) -> Int {
    // Floor to microseconds, so -1 ns is -0.000001, not -0.000000.
    var micros = time.nanoseconds / 1_000
    if time.nanoseconds % 1_000 < 0 { micros -= 1 }
    var i = 0
    if micros < 0 {
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 0, as: UInt8.self)
        i = 1
    }
    let magnitude = micros.magnitude
    var seconds = magnitude / 1_000_000
    var fraction = magnitude % 1_000_000
    // Integer part, at least one digit.
    var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { raw in
        let d = raw.bindMemory(to: UInt8.self)
        repeat {
            d[count] = UInt8(seconds % 10) + UInt8(ascii: "0")
            seconds /= 10
            count += 1
        } while seconds > 0
        while count > 0 {
            count -= 1
            out.storeBytes(of: d[count], toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }
    out.storeBytes(of: UInt8(ascii: "."), toByteOffset: i, as: UInt8.self)
    i += 1
    var place = 5
    while place >= 0 {
        out.storeBytes(of: UInt8(fraction % 10) + UInt8(ascii: "0"), toByteOffset: i + place, as: UInt8.self)
        fraction /= 10
        place -= 1
    }
    return i + 6
}

/// `formatSeconds` as a String, for messages and tests.
package func secondsString(_ time: Instant) -> String {
    withUnsafeTemporaryAllocation(byteCount: maxSecondsLength, alignment: 1) { raw in
        let n = formatSeconds(time, into: raw.baseAddress!)
        return String(decoding: UnsafeRawBufferPointer(start: raw.baseAddress!, count: n), as: UTF8.self)
    }
}
