// A member of a JSON line, found without parsing the line: the scanner walks
// the object from its `{`, checks strict JSON (RFC 8259) as it goes, and
// stops at the end of the member's value. What follows is never read, so a
// line cut short or garbled after the member still yields it, while anything
// malformed before the value's end (a raw control byte or a lone surrogate in
// a string, a leading zero, `truex`) means the member is missing.
//
// The value is a range of the line: a string's text between its quotes (to
// be decoded only when it holds escapes), or the exact bytes of a number,
// literal, object or array. Nothing is allocated.
//
// Bytes of 0x80 and above are taken as they are: pace reads bytes, and
// checking UTF-8 would cost every line for the sake of lines no JSON writer
// produces.

/// What a NAME found in a structured line.
enum StructuredValue: Equatable {
    case missing
    /// The value is these bytes of the line, as they are.
    case plain(Range<Int>)
    /// A JSON string's text between its quotes, holding escapes to decode.
    case jsonEscaped(Range<Int>)
    /// A logfmt quoted value's text, holding `\"` or `\\` to decode.
    case logfmtEscaped(Range<Int>)
}

/// Whether a JSON value starting with `byte` can only be a number.
@inline(__always)
func startsNumber(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "-") }

/// Nesting deeper than this makes a member missing (RFC 8259 lets a parser
/// limit depth; the limit keeps the recursion's stack small).
let maximumJSONDepth = 512

/// The member at `path` (one name per level) of the JSON object whose `{` is
/// at `start`, reading `line[..<end]`.
func jsonMember(_ line: UnsafeRawBufferPointer, objectAt start: Int, end: Int, name path: NameView) -> StructuredValue {
    guard let base = line.baseAddress else { return .missing }
    var scan = JSONScanner(base: base, end: end, at: start)
    let levels = path.ends.count
    for level in 0..<levels {
        let name = path.level(level)
        // `scan.i` is at the `{` of the object to look in.
        scan.i &+= 1
        scan.skipWhitespace()
        if scan.byte == UInt8(ascii: "}") { return .missing }
        while true {
            guard scan.byte == UInt8(ascii: "\"") else { return .missing }
            // A NAME holds no quote, backslash or control byte: when its
            // bytes and a quote follow, that is the whole member name.
            let close = scan.i &+ 1 &+ name.count
            let matched: Bool
            if close < end, scan.byte(at: close) == UInt8(ascii: "\""),
               sameBytes(UnsafeRawBufferPointer(start: base + scan.i + 1, count: name.count), name) {
                scan.i = close &+ 1
                matched = true
            } else {
                guard let member = scan.string() else { return .missing }
                matched = member.escaped && scan.textEquals(member, name)
            }
            scan.skipWhitespace()
            guard scan.byte == UInt8(ascii: ":") else { return .missing }
            scan.i &+= 1
            scan.skipWhitespace()
            if matched {
                // The first member of that name counts, whatever its value.
                // A string, the commonest, is read here rather than a call away.
                if level == levels - 1 {
                    if scan.byte == UInt8(ascii: "\"") { return scan.string()?.value ?? .missing }
                    return scan.nonStringValue(at: scan.i).value
                }
                guard scan.byte == UInt8(ascii: "{") else { return .missing }
                break
            }
            let first = scan.byte
            if first == UInt8(ascii: "\"") {
                guard scan.string() != nil else { return .missing }
            } else if startsNumber(first) {
                // By value, not `number()`: the compiler keeps that a call,
                // and the scanner then goes to memory (+11 instructions a line).
                let after = scan.numberEnd(from: scan.i)
                guard after >= 0 else { return .missing }
                scan.i = after
            } else {
                guard scan.skipValue(depth: level + 1) else { return .missing }
            }
            scan.skipWhitespace()
            guard scan.byte == UInt8(ascii: ",") else { return .missing }
            scan.i &+= 1
            scan.skipWhitespace()
        }
    }
    return .missing
}

struct JSONScanner {
    let base: UnsafeRawPointer
    let end: Int
    var i: Int

    init(base: UnsafeRawPointer, end: Int, at start: Int) {
        self.base = base
        self.end = end
        i = start
    }

    /// The byte at `i`, or 0 past the end (0 is a control byte: no token
    /// accepts it).
    @inline(__always)
    var byte: UInt8 { i < end ? base.load(fromByteOffset: i, as: UInt8.self) : 0 }

    @inline(__always)
    func byte(at j: Int) -> UInt8 { j < end ? base.load(fromByteOffset: j, as: UInt8.self) : 0 }

    @inline(__always)
    mutating func skipWhitespace() {
        while true {
            let b = byte
            // Most often there is none: compact JSON.
            if b > 0x20 { return }
            guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return }
            i &+= 1
        }
    }

    // The scanner's steps are inlined into the member walk, except for
    // nested objects and arrays and for escapes: a call per member and value
    // cost as much as the scanning itself on typical log lines. What is a
    // call away takes and returns positions by value, so that the walk's
    // scanner stays in registers instead of going to memory for each call.

    /// The value at `j`, which is not a string, as a member's value, and
    /// where it ends: checked to its end, not beyond what a number or
    /// literal needs to know it has ended. A number, the time's value, is
    /// read here; the rest a call away. The walks read a string value
    /// themselves: the compiler keeps this a call whatever it is marked. By
    /// value: as a mutating step it sent the walk's scanner to memory at
    /// each step (104 instructions a value).
    @inline(__always)
    func nonStringValue(at j: Int) -> (value: StructuredValue, end: Int) {
        let first = byte(at: j)
        if startsNumber(first) {
            let after = numberEnd(from: j)
            guard after >= 0, endsScalar(at: after) else { return (.missing, j) }
            return (.plain(j..<after), after)
        }
        guard let after = otherValueEnd(from: j) else { return (.missing, j) }
        return (.plain(j..<after), after)
    }

    /// Where the object, array or literal at `j` ends as a member's value,
    /// checked; nil when malformed.
    @inline(never)
    func otherValueEnd(from j: Int) -> Int? {
        var scan = self
        scan.i = j
        switch scan.byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return containerEnd(at: j, depth: 1)
        default:
            guard scan.scalar(), endsScalar(at: scan.i) else { return nil }
            return scan.i
        }
    }

    /// Whether a number or literal may end before `j`: at whitespace, a
    /// structural byte or the line's end (`truex` and `01` are malformed).
    @inline(__always)
    func endsScalar(at j: Int) -> Bool {
        guard j < end else { return true }
        switch base.load(fromByteOffset: j, as: UInt8.self) {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): return true
        default: return false
        }
    }

    /// Skips one value, checking it; false when it is malformed.
    @inline(__always)
    mutating func skipValue(depth: Int) -> Bool {
        switch byte {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard let after = containerEnd(at: i, depth: depth) else { return false }
            i = after
            return true
        default: return scalar()
        }
    }

    /// Where the object or array at `j` ends, checked; nil when malformed.
    @inline(never)
    func containerEnd(at j: Int, depth: Int) -> Int? {
        var scan = self
        scan.i = j
        return scan.skipContainer(depth: depth) ? scan.i : nil
    }

    /// Skips the object or array at `i`, checking it.
    private mutating func skipContainer(depth: Int) -> Bool {
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maximumJSONDepth else { return false }
            i &+= 1
            skipWhitespace()
            if byte == UInt8(ascii: "}") { i &+= 1; return true }
            while true {
                guard byte == UInt8(ascii: "\""), string() != nil else { return false }
                skipWhitespace()
                guard byte == UInt8(ascii: ":") else { return false }
                i &+= 1
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                switch byte {
                case UInt8(ascii: ","): i &+= 1; skipWhitespace()
                case UInt8(ascii: "}"): i &+= 1; return true
                default: return false
                }
            }
        case UInt8(ascii: "["):
            guard depth < maximumJSONDepth else { return false }
            i &+= 1
            skipWhitespace()
            if byte == UInt8(ascii: "]") { i &+= 1; return true }
            while true {
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                switch byte {
                case UInt8(ascii: ","): i &+= 1; skipWhitespace()
                case UInt8(ascii: "]"): i &+= 1; return true
                default: return false
                }
            }
        default:
            return scalar()
        }
    }
}
