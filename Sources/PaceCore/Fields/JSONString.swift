// JSON strings for the member scanner (JSONMember.swift): checking a string
// as RFC 8259 has it (escapes, surrogate pairs, no raw control byte),
// comparing its text with a NAME, and decoding it (only done for a value that
// holds escapes, into the extractor's reusable buffer).

/// A JSON string's text, as found by the scanner.
struct JSONString {
    var content: Range<Int>
    var escaped: Bool

    /// The string as a member's value.
    var value: StructuredValue { escaped ? .jsonEscaped(content) : .plain(content) }
}

extension JSONScanner {
    /// The string whose `"` is at `i`, checked; `i` ends past its closing
    /// quote. Nil when it is malformed or unterminated.
    @inline(__always)
    mutating func string() -> JSONString? {
        i &+= 1
        let start = i
        var escaped = false
        while true {
            // Plain text eight bytes at a time, up to a quote, a backslash
            // or a control byte.
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let stops = zeroBytes(word ^ (everyByte &* 0x22)) | zeroBytes(word ^ (everyByte &* 0x5C))
                    | controlBytes(word)
                if stops != 0 {
                    i &+= stops.trailingZeroBitCount >> 3
                    break
                }
                i &+= 8
            }
            let b = byte
            if b == UInt8(ascii: "\"") {
                i &+= 1
                return JSONString(content: start..<(i &- 1), escaped: escaped)
            }
            if b == UInt8(ascii: "\\") {
                guard let after = escapeEnd(at: i) else { return nil }
                i = after
                escaped = true
                continue
            }
            // A control byte, or the end of the line.
            if b < 0x20 { return nil }
            i &+= 1
        }
    }

    /// Where the escape whose backslash is at `j` ends; nil when malformed.
    @inline(never)
    private func escapeEnd(at j: Int) -> Int? {
        var scan = self
        scan.i = j
        return scan.escape() ? scan.i : nil
    }

    /// The escape whose backslash is at `i`; `i` ends past it.
    private mutating func escape() -> Bool {
        switch byte(at: i &+ 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            i &+= 2
            return true
        case UInt8(ascii: "u"):
            guard let unit = hex4(at: i &+ 2) else { return false }
            i &+= 6
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by a low one.
                guard byte == UInt8(ascii: "\\"), byte(at: i &+ 1) == UInt8(ascii: "u"),
                      let low = hex4(at: i &+ 2), (0xDC00...0xDFFF).contains(low) else { return false }
                i &+= 6
                return true
            case 0xDC00...0xDFFF:
                return false
            default:
                return true
            }
        default:
            return false
        }
    }

    /// Four hex digits at `j`.
    func hex4(at j: Int) -> UInt32? {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(byte(at: j &+ k)) else { return nil }
            value = value << 4 | UInt32(h)
        }
        return value
    }

    /// Whether the string text `s` (checked already) reads `name` once
    /// decoded. Names without escapes are compared as bytes.
    @inline(__always)
    func textEquals(_ s: JSONString, _ name: UnsafeRawBufferPointer) -> Bool {
        if !s.escaped {
            return sameBytes(UnsafeRawBufferPointer(start: base + s.content.lowerBound, count: s.content.count), name)
        }
        return escapedTextEquals(s, name)
    }

    private func escapedTextEquals(_ s: JSONString, _ name: UnsafeRawBufferPointer) -> Bool {
        var k = 0
        var matches = true
        decodeJSONText(base, s.content) { b in
            if k < name.count && name[k] == b { k &+= 1 } else { matches = false }
        }
        return matches && k == name.count
    }
}

@inline(__always)
func hexValue(_ b: UInt8) -> UInt8? {
    if b &- UInt8(ascii: "0") < 10 { return b &- UInt8(ascii: "0") }
    let lower = b | 0x20
    if lower &- UInt8(ascii: "a") < 6 { return lower &- UInt8(ascii: "a") &+ 10 }
    return nil
}

/// Decodes the text of a checked JSON string (`content` between its quotes),
/// handing out its bytes: escapes resolved, `\u` as UTF-8 (a surrogate pair
/// as one code point, `\u0000` a NUL byte).
@inline(__always)
func decodeJSONText(_ base: UnsafeRawPointer, _ content: Range<Int>, _ out: (UInt8) -> Void) {
    @inline(__always) func at(_ j: Int) -> UInt8 { base.load(fromByteOffset: j, as: UInt8.self) }
    @inline(__always) func hex(_ j: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 4 | UInt32(hexValue(at(j + k))!) }
        return v
    }
    var j = content.lowerBound
    let end = content.upperBound
    while j < end {
        let b = at(j)
        if b != UInt8(ascii: "\\") {
            out(b)
            j += 1
            continue
        }
        let e = at(j + 1)
        j += 2
        switch e {
        case UInt8(ascii: "b"): out(0x08)
        case UInt8(ascii: "f"): out(0x0C)
        case UInt8(ascii: "n"): out(0x0A)
        case UInt8(ascii: "r"): out(0x0D)
        case UInt8(ascii: "t"): out(0x09)
        case UInt8(ascii: "u"):
            var scalar = hex(j)
            j += 4
            if (0xD800...0xDBFF).contains(scalar) {
                let low = hex(j + 2)
                j += 6
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            utf8Bytes(of: scalar, out)
        default: out(e)  // `"`, `\` and `/` stand for themselves
        }
    }
}

/// The UTF-8 encoding of a code point (not a surrogate).
@inline(__always)
private func utf8Bytes(of scalar: UInt32, _ out: (UInt8) -> Void) {
    switch scalar {
    case 0..<0x80:
        out(UInt8(scalar))
    case 0x80..<0x800:
        out(UInt8(0xC0 | scalar >> 6))
        out(UInt8(0x80 | scalar & 0x3F))
    case 0x800..<0x10000:
        out(UInt8(0xE0 | scalar >> 12))
        out(UInt8(0x80 | scalar >> 6 & 0x3F))
        out(UInt8(0x80 | scalar & 0x3F))
    default:
        out(UInt8(0xF0 | scalar >> 18))
        out(UInt8(0x80 | scalar >> 12 & 0x3F))
        out(UInt8(0x80 | scalar >> 6 & 0x3F))
        out(UInt8(0x80 | scalar & 0x3F))
    }
}
