// A key of a logfmt line (Go's slog, logrus, Heroku): `key=value` pairs and
// bare keys separated by blanks. A value is bare (up to the next blank) or a
// double-quoted string in which `\"` and `\\` stand for `"` and `\` and any
// other escape is kept as written. The scan stops at the first pair whose key
// is the NAME; an unterminated quote ends the pairs there.
//
// Two choices SPEC leaves open: a bare key's value is empty (so it counts as
// the empty value, as a missing one does), and a quoted value ends at its
// closing quote even when no blank follows (`a="x"b=1` holds a and b).

/// The value of the first pair of `line[..<end]` whose key is `name`.
func logfmtValue(_ line: UnsafeRawBufferPointer, end: Int, name: UnsafeRawBufferPointer) -> StructuredValue {
    var i = 0
    while let (key, value, next) = logfmtPair(line, at: i, end: end) {
        if sameBytes(UnsafeRawBufferPointer(rebasing: line[key]), name) { return value }
        i = next
    }
    return .missing
}

/// The pair that starts at or after `start` (past blanks): its key, its
/// value and where the scan goes on. Nil when no pair is left, or at an
/// unterminated quote (which ends the pairs).
@inline(__always)
func logfmtPair(_ line: UnsafeRawBufferPointer, at start: Int, end: Int)
    -> (key: Range<Int>, value: StructuredValue, next: Int)? {
    var i = start
    while i < end && isBlank(line[i]) { i &+= 1 }
    if i >= end { return nil }
    let keyStart = i
    while i < end, line[i] != UInt8(ascii: "="), !isBlank(line[i]) { i &+= 1 }
    let key = keyStart..<i
    var value: StructuredValue = .plain(i..<i)
    if i < end && line[i] == UInt8(ascii: "=") {
        i &+= 1
        if i < end && line[i] == UInt8(ascii: "\"") {
            i &+= 1
            let valueStart = i
            var escaped = false
            while true {
                guard i < end else { return nil }  // unterminated: no more pairs
                let b = line[i]
                if b == UInt8(ascii: "\"") { break }
                if b == UInt8(ascii: "\\") {
                    guard i &+ 1 < end else { return nil }
                    let next = line[i &+ 1]
                    if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") { escaped = true }
                    i &+= 2
                    continue
                }
                i &+= 1
            }
            value = escaped ? .logfmtEscaped(valueStart..<i) : .plain(valueStart..<i)
            i &+= 1
        } else {
            let valueStart = i
            i = nextBlank(line, from: i, end: end)
            value = .plain(valueStart..<i)
        }
    }
    return (key, value, i)
}

/// Decodes a logfmt quoted value's text: `\"` and `\\` become `"` and `\`,
/// any other backslash stays with the byte after it.
@inline(__always)
func decodeLogfmtText(_ line: UnsafeRawBufferPointer, _ content: Range<Int>, _ out: (UInt8) -> Void) {
    var j = content.lowerBound
    while j < content.upperBound {
        let b = line[j]
        if b == UInt8(ascii: "\\") && j + 1 < content.upperBound {
            let next = line[j + 1]
            if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") {
                out(next)
                j += 2
                continue
            }
        }
        out(b)
        j += 1
    }
}
