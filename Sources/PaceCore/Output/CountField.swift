// `--count-field NAME`: the count inside the line (SPEC, Output). A line
// whose first non-blank byte is `{` (past the input's byte-order mark) and
// whose last non-blank byte before a final `\r` is `}` is a JSON object:
// `,"NAME":N` goes just before that brace, without the comma when only
// blanks lie between the braces. Any other line gets ` NAME=N` appended,
// before a final `\r`. FileSink writes the line around the point found
// here, without building it anywhere else.

/// How `--count` is shown on stdout.
package enum CountStyle: Equatable, Sendable {
    /// `--count`: a prefix and a TAB.
    case prefix
    /// Counted for `--then-every` alone: not shown.
    case hidden
    /// `--count-field NAME`: the JSON member's bytes (`,"NAME":`) and the
    /// logfmt pair's (` NAME=`).
    case field(member: [UInt8], pair: [UInt8])

    package static func field(_ name: [UInt8]) -> CountStyle {
        .field(member: Array(",\"".utf8) + name + Array("\":".utf8), pair: [0x20] + name + [UInt8(ascii: "=")])
    }
}

/// Where the count goes in `line`: before byte `at`, as the JSON member
/// (`json`; `comma` false when the object is empty) or the logfmt pair.
/// `skipsMark`: the line may start with the input's byte-order mark.
@inline(__always)
func countFieldPlace(_ line: UnsafeRawBufferPointer, skipsMark: Bool) -> (at: Int, json: Bool, comma: Bool) {
    var end = line.count
    if end > 0 && line[end - 1] == 0x0D { end -= 1 }
    var first = 0
    if skipsMark && line.count >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF { first = 3 }
    while first < end && isBlank(line[first]) { first += 1 }
    guard first < end && line[first] == UInt8(ascii: "{") else { return (end, false, false) }
    var last = end - 1
    while last > first && isBlank(line[last]) { last -= 1 }
    guard last > first && line[last] == UInt8(ascii: "}") else { return (end, false, false) }
    var inside = last - 1
    while inside > first && isBlank(line[inside]) { inside -= 1 }
    return (last, true, inside != first)
}

// MARK: - Writing it

// FileSink's own buffer, written around the place found above (the parts
// of FileSink this reaches are internal for it).
extension FileSink {
    /// `--count-field`: the line with the count inside it (CountField.swift),
    /// after `--emit-time`'s prefix and `--resolve-after`'s mark, if any.
    mutating func write(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64, member: [UInt8],
                        pair: [UInt8], first: Bool, mark: EpisodeMark = .none) throws(OutputError) {
        if capacity - used < maxSecondsLength + 1 + 8 + 1 { try Self.beforeLine { () throws(OutputError) in try makeRoom() } }
        if emitTime {
            used += formatSeconds(time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        if mark != .none {
            let (bytes, length) = mark.packedWord
            buffer.storeBytes(of: bytes.littleEndian, toByteOffset: used, as: UInt64.self)
            used += length
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        let place = countFieldPlace(line, skipsMark: first)
        try appendPart(UnsafeRawBufferPointer(rebasing: line[..<place.at]))
        // The member without its comma in an empty object.
        try appendPart(place.json ? member : pair, from: place.json && !place.comma ? 1 : 0)
        if capacity - used < maxCountLength { try Self.beforeLine { () throws(OutputError) in try makeRoom() } }
        used += formatCount(count, into: buffer + used)
        try append(UnsafeRawBufferPointer(rebasing: line[place.at...]))
        if flushEachLine { try flush() }
    }

    /// Appends `bytes[start...]` (a NAME's member or pair: short), a byte
    /// at a time.
    private mutating func appendPart(_ bytes: [UInt8], from start: Int) throws(OutputError) {
        for i in start..<bytes.count {
            if used == capacity { try Self.beforeLine { () throws(OutputError) in try makeRoom() } }
            buffer.storeBytes(of: bytes[i], toByteOffset: used, as: UInt8.self)
            used += 1
        }
    }

    /// Appends raw bytes, without a `\n` (a part of a line).
    private mutating func appendPart(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        if bytes.count > capacity - used { try Self.beforeLine { () throws(OutputError) in try makeRoom() } }
        if bytes.count <= capacity - used {
            if bytes.count > 0 { (buffer + used).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            used += bytes.count
        } else {
            try Self.beforeLine { () throws(OutputError) in try writeDirectly(bytes) }
        }
    }
}
