// The state file's bytes, read and written without a check or an
// allocation per byte: its lines and their TAB-separated fields found with
// memchr (StateFormat's decoding), and a writer into a buffer whose bound
// the encoding works out first.

import Glibc

/// The lines of a buffer, each without its `\n`; a last line without one is
/// not a line (a file cut short).
struct LineCursor {
    let bytes: UnsafeRawBufferPointer
    var at = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }

    mutating func next() -> UnsafeRawBufferPointer? {
        guard at < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + at, Int32(stateNewline), bytes.count - at) else { return nil }
        let end = base.distance(to: UnsafeRawPointer(found))
        defer { at = end + 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[at..<end])
    }
}

/// The TAB-separated fields of a line.
struct FieldCursor {
    let line: UnsafeRawBufferPointer
    var at = 0
    var done = false

    init(_ line: UnsafeRawBufferPointer) { self.line = line }

    mutating func next() -> UnsafeRawBufferPointer? {
        guard !done else { return nil }
        guard let base = line.baseAddress, at < line.count,
              let found = memchr(base + at, Int32(stateTab), line.count - at) else {
            done = true
            return UnsafeRawBufferPointer(rebasing: line[at...])
        }
        let end = base.distance(to: UnsafeRawPointer(found))
        defer { at = end + 1 }
        return UnsafeRawBufferPointer(rebasing: line[at..<end])
    }
}

/// Writes bytes into a buffer known to be large enough (`encode` works out
/// the bound), with no check per byte.
struct ByteWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ a: UInt8, _ b: UInt8) {
        base[count] = a
        base[count &+ 1] = b
        count &+= 2
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        (base + count).update(from: from.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count &+= bytes.count
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A whole number in decimal.
    mutating func appendDecimal(_ value: Int128) {
        if value < 0 { append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        if magnitude <= UInt128(UInt64.max) {
            appendDigits(UInt64(magnitude))
        } else {
            // Beyond 64 bits (a bucket's A pinned far out): the high digits
            // first, then the low 19, zero-padded.
            let split: UInt128 = 10_000_000_000_000_000_000
            appendDecimal(Int128(magnitude / split))
            appendDigits(UInt64(magnitude % split), width: 19)
        }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    mutating func appendDigits(_ value: UInt64, width: Int = 1) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var n = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[n] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                n &+= 1
            } while rest > 0 || n < width
            for i in stride(from: n - 1, through: 0, by: -1) { append(scratch[i]) }
        }
    }

    /// Nanoseconds as seconds with 9 decimals (`-` before a negative time).
    mutating func appendSeconds(_ nanoseconds: Int128) {
        if nanoseconds < 0 { append(UInt8(ascii: "-")) }
        let magnitude = nanoseconds.magnitude
        appendDecimal(Int128(magnitude / 1_000_000_000))
        append(UInt8(ascii: "."))
        appendDigits(UInt64(magnitude % 1_000_000_000), width: 9)
    }
}
