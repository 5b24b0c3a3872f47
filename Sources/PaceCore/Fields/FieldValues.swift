// One item's value in a line, whatever the item is: a numbered field (split
// by blanks or by the delimiter) or a NAME (a JSON member or a logfmt key;
// the line's first non-blank byte says which). Values are slices of the
// line; only an escaped string is decoded, into the caller's scratch.

/// The structured value of `name` in `line[..<end]`.
@inline(__always)
func structuredValue(_ line: UnsafeRawBufferPointer, end: Int, name: NameView) -> StructuredValue {
    var i = 0
    while i < end && isBlank(line[i]) { i &+= 1 }
    if i < end && line[i] == UInt8(ascii: "{") {
        return jsonMember(line, objectAt: i, end: end, name: name)
    }
    return logfmtValue(line, end: end, name: name.bytes)
}

extension ByteScratch {
    /// Appends the bytes of `value` (found in `line`): a slice copied, an
    /// escaped string decoded. Returns the number of bytes appended.
    @discardableResult
    func append(_ value: StructuredValue, of line: UnsafeRawBufferPointer) -> Int {
        let before = count
        switch value {
        case .missing:
            break
        case let .plain(range):
            append(UnsafeRawBufferPointer(rebasing: line[range]))
        case let .jsonEscaped(range):
            // Decoding never lengthens a string: \uXXXX is at most 3 bytes,
            // a surrogate pair's 12 are 4.
            reserve(range.count)
            decodeJSONText(line.baseAddress!, range) { appendReserved($0) }
        case let .logfmtEscaped(range):
            reserve(range.count)
            decodeLogfmtText(line, range) { appendReserved($0) }
        }
        return count - before
    }
}

/// `value` as bytes: a slice of `line`, or (escaped) decoded into `scratch`,
/// which it then occupies from offset 0; empty when missing.
@inline(__always)
func valueBytes(_ value: StructuredValue, of line: UnsafeRawBufferPointer, scratch: ByteScratch) -> UnsafeRawBufferPointer {
    switch value {
    case .missing:
        return .empty
    case let .plain(range):
        return UnsafeRawBufferPointer(rebasing: line[range])
    case .jsonEscaped, .logfmtEscaped:
        scratch.count = 0
        scratch.append(value, of: line)
        return scratch.bytes
    }
}

/// Field `n` of `line[..<end]` as a range, split by blanks or by `delimiter`
/// (when `delimited`); nil when the line has fewer fields.
@inline(__always)
func numberedField(_ line: UnsafeRawBufferPointer, _ n: Int, end: Int, delimited: Bool, delimiter: UInt8) -> Range<Int>? {
    if delimited { return delimitedFieldRange(line, field: n, delimiter: delimiter, end: end) }
    guard let start = fieldStart(line, field: n, end: end) else { return nil }
    return start..<nextBlank(line, from: start, end: end)
}
