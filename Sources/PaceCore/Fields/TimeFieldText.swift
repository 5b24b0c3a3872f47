// `--time-field`: where a replay line's timestamp is. A number without
// `--delimiter` is where the timestamp starts: it may span several fields,
// as syslog's does, and the format decides where it ends. A number with
// `--delimiter`, or a NAME, is a whole value, which the format must fit.
// A NAME may be found by a walk that finds the key's and `--exempt`'s NAMEs
// too (LineWalk.swift; the time's is its value 0).

struct TimeFieldText {
    private enum Shape { case blankStart, delimited, name, walked }

    private let shape: Shape
    private let field: Int
    private let delimiter: UInt8
    /// A NAME's layout (kept alive for `name`) and where its bytes are.
    private let layout: NameLayout?
    private let name: NameView?
    /// Why a line without the field has no time.
    let missing: BadTime
    private let scratch = ByteScratch(capacity: 64)
    /// `walked`: the walk that finds the NAME (value 0) and others' values.
    private let walk: LineWalk?

    init(_ timeField: TimeField, delimiter: UInt8?, walk: LineWalk? = nil) {
        self.walk = walk
        self.delimiter = delimiter ?? 0
        switch timeField {
        case let .number(n):
            (shape, field, layout, missing) = (delimiter == nil ? .blankStart : .delimited, n, nil, .missingField(n))
        case let .name(n):
            (shape, field, layout, missing) = (walk == nil ? .name : .walked, 0, NameLayout(n), .missingName(n.text))
        }
        precondition(walk == nil || shape == .walked, "TimeFieldText: a walk finds a NAME")
        name = layout?.view
    }

    /// The field's number (for a NAME, 0).
    var number: Int { field }

    /// Whether the text found is a whole value (the format must end at its
    /// end), rather than the rest of the line from where the field starts.
    var isWholeValue: Bool { shape != .blankStart }


    /// The text holding the timestamp and where in it the field starts
    /// (a slice of `line`, or of the scratch for a decoded string); nil
    /// when the line lacks the field. `walked`: the walk that finds a NAME
    /// has walked `line` already (TimestampReader's `readWalkedValue`).
    @inline(__always)
    func text(of line: UnsafeRawBufferPointer, walked: Bool = false) -> (text: UnsafeRawBufferPointer, start: Int)? {
        if shape == .blankStart {
            guard let start = fieldStart(line, field: field) else { return nil }
            return (line, start)
        }
        return wholeValue(of: line, walked: walked)
    }

    /// A whole value: a call away, so that `text` stays small enough for the
    /// timestamp parsers to be inlined next to it.
    @inline(never)
    private func wholeValue(of line: UnsafeRawBufferPointer, walked: Bool) -> (text: UnsafeRawBufferPointer, start: Int)? {
        switch shape {
        case .blankStart:
            preconditionFailure("TimeFieldText: a field start is found inline")
        case .delimited:
            guard let range = delimitedFieldRange(line, field: field, delimiter: delimiter) else { return nil }
            return (UnsafeRawBufferPointer(rebasing: line[range]), 0)
        case .name:
            let value = structuredValue(line, end: contentLength(line), name: name.unsafelyUnwrapped)
            if value == .missing { return nil }
            return (valueBytes(value, of: line, scratch: scratch), 0)
        case .walked:
            let walk = walk.unsafelyUnwrapped
            if !walked { walk.walk(line) }
            let value = walk.value(0)
            if value == .missing { return nil }
            return (valueBytes(value, of: line, scratch: scratch), 0)
        }
    }
}
