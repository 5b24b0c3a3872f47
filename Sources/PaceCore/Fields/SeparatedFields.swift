// Numbered fields: runs of spaces and tabs (as awk splits), or each single
// `--delimiter` byte (as `cut -d` splits). Everything here finds byte ranges
// in the line as read: nothing is copied or allocated.
//
// A `\r` ending the line belongs to no field, so every splitter stops at
// `contentLength`.

@inline(__always)
func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

/// The length of `line` without a final `\r`: a `\r` ending the line belongs
/// to no field.
@inline(__always)
func contentLength(_ line: UnsafeRawBufferPointer) -> Int {
    let n = line.count
    return n > 0 && line[n - 1] == 0x0D ? n - 1 : n
}

/// Whether `line` has no content: it is empty, or a lone `\r`
/// (`contentLength` 0, decided by the length first: a line's last byte is
/// not read unless the line is one byte long).
@inline(__always)
func hasNoContent(_ line: UnsafeRawBufferPointer) -> Bool {
    line.count <= 1 && (line.count == 0 || line[0] == 0x0D)
}

/// The first line without the UTF-8 byte-order mark it may start with: SPEC
/// ignores one at the very start of the input for fields and timestamps
/// (the line is still written out as read). Called for line 1 only.
func withoutByteOrderMark(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    guard line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF else { return line }
    return UnsafeRawBufferPointer(rebasing: line[3...])
}

// MARK: - Runs of blanks

/// Where field `field` (1-based) starts, fields being separated by runs of
/// spaces and tabs, leading blanks ignored (as awk does); nil when the line
/// has fewer fields.
@inline(__always)
func fieldStart(_ line: UnsafeRawBufferPointer, field: Int) -> Int? {
    fieldStart(line, field: field, end: contentLength(line))
}

@inline(__always)
func fieldStart(_ line: UnsafeRawBufferPointer, field: Int, end n: Int) -> Int? {
    fieldStart(line, field: field, end: n, from: 0, seen: 0)
}

/// `fieldStart` going on from `i`, where `seen` fields have started (`i`
/// is inside the last of them or on the blanks after it: the field's rest
/// is crossed first).
@inline(__always)
func fieldStart(_ line: UnsafeRawBufferPointer, field: Int, end n: Int, from start: Int, seen known: Int) -> Int? {
    var i = start
    var seen = known
    // A known place is most often its field's end (a timestamp's): the
    // blank there is tested before a word-at-a-time scan is set up.
    if seen > 0 && i < n && !isBlank(line[i]) { i = nextBlank(line, from: i, end: n) }
    while true {
        while i < n && isBlank(line[i]) { i += 1 }
        if i >= n { return nil }
        seen += 1
        if seen == field { return i }
        i = nextBlank(line, from: i, end: n)
    }
}

/// The bytes of field `field` (1-based), or an empty range when the line has
/// fewer fields (such lines share the empty key).
@inline(__always)
package func fieldRange(_ line: UnsafeRawBufferPointer, field: Int) -> Range<Int> {
    fieldRange(line, field: field, after: .none)
}

/// A place in a line known to lie in blank-separated field `field`
/// (1-based), or on the blanks after it: where a later field's search can
/// start (replay's timestamp reader marks where a unix time ended, so that
/// the key's field is not searched for from the line's start again).
/// `field` 0: nothing is known.
package struct FieldPosition: Equatable {
    package var field: Int
    package var offset: Int

    package static let none = FieldPosition(field: 0, offset: 0)
}

/// `fieldRange` of a field after `known.field`, searched for from `known`
/// (from the line's start when `known` is `.none`).
@inline(__always)
func fieldRange(_ line: UnsafeRawBufferPointer, field: Int, after known: FieldPosition) -> Range<Int> {
    let n = contentLength(line)
    // The commonest line of all has the field right after the known place's
    // field, one blank between them (`1795953600.000569 host04 ...`): told
    // by two bytes, without the walk (`--replay --debounce 300ms --key-field
    // 2`: 614 instructions a line -> 595).
    let next = known.offset &+ 1
    let start: Int
    if known.field &+ 1 == field && next < n && isBlank(line[known.offset]) && !isBlank(line[next]) {
        start = next
    } else {
        guard let found = fieldStart(line, field: field, end: n, from: min(known.offset, n), seen: known.field) else {
            return 0..<0
        }
        start = found
    }
    return start..<nextBlank(line, from: start, end: n)
}

/// The first space or tab in `line[i..<end]`, or `end`. Fields are words of
/// a few to a few dozen bytes, so they are crossed eight bytes at a time,
/// looking for the first byte below 0x21 (`lowBytes`: one subtraction and
/// two masks a word, where testing for space and for tab apart took twice
/// that): a space or tab is such a byte, and so is a control byte, which is
/// rare in a log and is stepped over.
@inline(__always)
func nextBlank(_ line: UnsafeRawBufferPointer, from start: Int, end: Int) -> Int {
    var i = start
    while i &+ 8 <= end {
        let word = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let low = lowBytes(word)
        if low != 0 {
            let j = i &+ (low.trailingZeroBitCount >> 3)
            if isBlank(line[j]) { return j }
            i = j &+ 1
            continue
        }
        i &+= 8
    }
    while i < end && !isBlank(line[i]) { i &+= 1 }
    return i
}

// MARK: - One delimiter byte

/// Field `field` (1-based) of a line split at each `delimiter` byte, as
/// `cut -d` splits it: a line without the byte is one field, a leading
/// delimiter makes an empty field 1. Nil when the line has fewer fields.
@inline(__always)
func delimitedFieldRange(_ line: UnsafeRawBufferPointer, field: Int, delimiter: UInt8) -> Range<Int>? {
    delimitedFieldRange(line, field: field, delimiter: delimiter, end: contentLength(line))
}

@inline(__always)
func delimitedFieldRange(_ line: UnsafeRawBufferPointer, field: Int, delimiter: UInt8, end n: Int) -> Range<Int>? {
    var start = 0
    var seen = 1
    while seen < field {
        let next = nextByte(delimiter, in: line, from: start, end: n)
        if next == n { return nil }
        start = next &+ 1
        seen &+= 1
    }
    return start..<nextByte(delimiter, in: line, from: start, end: n)
}

/// The first `byte` in `line[start..<end]`, or `end`, eight bytes at a time
/// as `nextBlank` does.
@inline(__always)
func nextByte(_ byte: UInt8, in line: UnsafeRawBufferPointer, from start: Int, end: Int) -> Int {
    let pattern = everyByte &* UInt64(byte)
    var i = start
    while i &+ 8 <= end {
        let word = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let hits = zeroBytes(word ^ pattern)
        if hits != 0 { return i &+ (hits.trailingZeroBitCount >> 3) }
        i &+= 8
    }
    while i < end && line[i] != byte { i &+= 1 }
    return i
}

// MARK: - Eight bytes at a time

/// 0x01 in every byte of a word.
let everyByte: UInt64 = 0x0101_0101_0101_0101

/// The high bit of each zero byte of `x` (exact up to the lowest zero byte,
/// which is all the scanners look at).
@inline(__always)
func zeroBytes(_ x: UInt64) -> UInt64 {
    (x &- everyByte) & ~x & (everyByte &* 0x80)
}

/// The high bit of each byte of `x` below 0x21 (a space, a tab or another
/// control byte), exact up to the lowest one, as `zeroBytes` is.
@inline(__always)
func lowBytes(_ x: UInt64) -> UInt64 {
    (x &- everyByte &* 0x21) & ~x & (everyByte &* 0x80)
}

/// The high bit of each byte of `x` below 0x20 (a control byte), exact up to
/// the lowest one, as `zeroBytes` is.
@inline(__always)
func controlBytes(_ x: UInt64) -> UInt64 {
    (x &- everyByte &* 0x20) & ~x & (everyByte &* 0x80)
}
