// Finds and parses the timestamp of each replay line: skips to `--time-field`,
// skips an opening `[`, applies the format (settling `auto` on the first line
// that fits any), and checks SPEC's boundary rule for named formats. It keeps
// the latest time it returned, which year-less formats need.
//
// Once the format is known to be a named one (given, or settled by `auto`),
// each line takes a short path that reads it without going through
// `TimeFormat`: copying that enum per line (a pattern holds a String) and
// matching on it cost more than parsing a unix timestamp.

/// The time of one replay line.
package enum TimeReading: Equatable {
    /// The line's time; `contentStart` is where the line's own bytes begin
    /// (past the prefix for `--time-format record`, else 0).
    case time(Instant, contentStart: Int)
    case bad(BadTime)
}

package struct TimestampReader {
    package let format: TimeFormat
    /// The format `auto` settled on, once a line fitted one.
    package private(set) var detected: TimeFormat?
    /// Where each line's timestamp is (`--time-field`, `--delimiter`).
    private let field: TimeFieldText
    /// The text found is a whole value, which a named format must fit.
    private let whole: Bool
    private var context: YearContext
    /// The named format every line is read with, once known.
    /// Set by `settle(on:)`, with the two flags that follow from it.
    private var named: NamedFormat?
    /// The latest time is kept for the year-less formats' year
    /// (YearInference.swift): not for a unix time or an offset, whose lines
    /// never need it once the format is settled.
    private var notesTimes = true
    /// `timeField` is said: the time field is blank-separated and the
    /// named format has no blank in it.
    private var marksField = false
    /// The time field is field 1 (of blank-separated fields).
    private let firstField: Bool
    /// The format is settled on `unix` and its field is field 1: a line
    /// that starts with ten digits and a dot is read at once (`read`).
    private var leadsWithUnix = false
    /// The short path's first eight digits, kept from line to line.
    private var leading = LeadingDigits()
    /// `auto`'s plausibility guard on bare numbers applies.
    private let guarded: Bool
    /// The walk that finds the time NAME and other values (LineWalk.swift),
    /// when one does: walked here, not by `field`, so that a unix time it
    /// read as it crossed the value (WalkedTime.swift) is taken at once.
    /// Unmanaged, used by a guaranteed reference: `field` keeps it alive,
    /// and a reference read in a mutating step was retained and released
    /// around the walk at every line (40 instructions).
    private let walk: Unmanaged<LineWalk>?
    /// Where the last line's timestamp ended, when the time field is a
    /// blank-separated field and the format has no blank in it (the unix
    /// ones and `offset`): the key's field is searched for from there.
    package private(set) var timeField = FieldPosition.none

    package init(format: TimeFormat, timeField: Int = 1, defaultYear: Int) {
        self.init(format: format, field: .number(timeField), delimiter: nil, defaultYear: defaultYear)
    }

    /// `field` and `delimiter` as `--time-field` and `--delimiter` give them;
    /// `walk`, the walk that finds a NAME field and others' values with it.
    package init(format: TimeFormat, field: TimeField, delimiter: UInt8?, defaultYear: Int) {
        self.init(format: format, field: field, delimiter: delimiter, defaultYear: defaultYear, walk: nil)
    }

    init(format: TimeFormat, field: TimeField, delimiter: UInt8?, defaultYear: Int, walk: LineWalk?) {
        self.format = format
        self.field = TimeFieldText(field, delimiter: delimiter, walk: walk)
        self.walk = walk.map(Unmanaged.passUnretained)
        whole = self.field.isWholeValue
        self.context = YearContext(defaultYear: defaultYear, latest: nil)
        firstField = !whole && self.field.number == 1
        guarded = format == .auto
        settle(on: NamedFormat(format))
    }

    /// Every line is read with `format` from now on (nil: not yet known).
    private mutating func settle(on format: NamedFormat?) {
        named = format
        notesTimes = format?.isOneField != true
        marksField = !whole && !notesTimes
        leadsWithUnix = format == .unix && firstField
        walk?.takeUnretainedValue().time.pointee.reads = format == .unix
    }

    /// The time of `line` (its bytes without the `\n`; a final `\r` is allowed).
    @inline(__always)
    package mutating func read(_ line: UnsafeRawBufferPointer) -> TimeReading {
        // The commonest line of all, a unix time of ten digits and a dot
        // at its first byte, without the format's dispatch: what the named
        // path below does for it, step for step (a line it does not fit
        // takes that path, which says why). The last test is `fits` for a
        // field that is no whole value, written out: calling `fits` here
        // cost 3 instructions a line, and JSON's path 10 (its inlining).
        if leadsWithUnix, let base = line.baseAddress,
           case let .time(t, length)? = parseTenDigitSeconds(base, from: 0, end: line.count, leading: &leading),
           length >= line.count || isTimestampTerminator(line[length]) {
            timeField = FieldPosition(field: 1, offset: length)
            return .time(t, contentStart: 0)
        }
        if let named { return read(line, named) }
        return readAnyFormat(line)
    }

    /// `read` for a named format: the same steps as `readAnyFormat` takes
    /// for one (a named format is not a pattern, so an opening `[` is
    /// skipped). Its closing switch repeats `readAnyFormat`'s on purpose:
    /// sharing it through a helper cost 1% of replay's instructions (the
    /// fast path stopped inlining as well).
    ///
    /// A time field that is a whole value (a NAME, or a field with
    /// `--delimiter`) is found a call away, so that the commonest case, a
    /// timestamp where a blank-separated field starts, stays small enough
    /// for its parser to be inlined into it.
    @inline(__always)
    private mutating func read(_ line: UnsafeRawBufferPointer, _ named: NamedFormat) -> TimeReading {
        if whole { return walk == nil ? readWholeValue(line, named) : readWalkedValue(line, named) }
        // Field 1 starts at the line's first byte when that is no blank
        // (an empty line never comes here: the driver takes it).
        if firstField && line.count > 0 && !isBlank(line[0]) { return read(line, from: 0, named) }
        guard let start = fieldStart(line, field: field.number) else { return .bad(.missingField(field.number)) }
        return read(line, from: start, named)
    }

    @inline(never)
    private mutating func readWholeValue(_ line: UnsafeRawBufferPointer, _ named: NamedFormat) -> TimeReading {
        readWholeValue(line, named, walked: false)
    }

    /// A NAME that a walk finds with other values: the walk's time when it
    /// read one, else the value it found, read as any whole value.
    @inline(never)
    private mutating func readWalkedValue(_ line: UnsafeRawBufferPointer, _ named: NamedFormat) -> TimeReading {
        let time = walk.unsafelyUnwrapped._withUnsafeGuaranteedRef { walk in
            walk.walk(line)
            return walk.time
        }
        if time.pointee.found { return .time(time.pointee.instant, contentStart: 0) }
        return readWholeValue(line, named, walked: true)
    }

    /// `walked`: the walk that finds the NAME has walked `line`.
    @inline(__always)
    private mutating func readWholeValue(_ line: UnsafeRawBufferPointer, _ named: NamedFormat,
                                         walked: Bool) -> TimeReading {
        guard let (text, start) = field.text(of: line, walked: walked) else { return .bad(field.missing) }
        guard start < text.count else { return noMatch }
        if named == .unix, let t = tenDigitValue(text, in: line) { return .time(t, contentStart: 0) }
        return read(text, from: start, named)
    }

    /// A whole value in `line` (a JSON number, a plain string, a delimited
    /// field) read by the short path's parser, which may load the line's
    /// bytes after it. Nil unless the parser ends exactly at the value's end
    /// (a decoded string is not in `line`): the named path then decides.
    @inline(__always)
    private mutating func tenDigitValue(_ text: UnsafeRawBufferPointer, in line: UnsafeRawBufferPointer) -> Instant? {
        guard let value = text.baseAddress, let start = line.baseAddress, value >= start else { return nil }
        let room = start + line.count - value
        guard case let .time(t, length)? = parseTenDigitSeconds(value, from: 0, end: room, leading: &leading),
              length == text.count else { return nil }
        return t
    }

    /// The named format at `fieldStart` of `text`, the time field's text.
    @inline(__always)
    private mutating func read(_ text: UnsafeRawBufferPointer, from fieldStart: Int, _ named: NamedFormat) -> TimeReading {
        var start = fieldStart
        if text[start] == UInt8(ascii: "[") { start += 1 }
        let result: FormatResult
        switch named {
        case .unix: result = parseUnixSeconds(text, from: start, plausibleOnly: guarded)
        case .unixMs: result = parseUnixInteger(text, from: start, unit: .milliseconds, plausibleOnly: guarded)
        case .unixUs: result = parseUnixInteger(text, from: start, unit: .microseconds, plausibleOnly: guarded)
        case .unixNs: result = parseUnixInteger(text, from: start, unit: .nanoseconds, plausibleOnly: guarded)
        case .offset: result = parseOffset(text, from: start)
        case .iso8601: result = parseCalendar(.iso8601, text, from: start, context: context)
        case .clf: result = parseCalendar(.clf, text, from: start, context: context)
        case .syslog: result = parseCalendar(.syslog, text, from: start, context: context)
        }
        switch result {
        case let .time(t, length):
            if !fits(text, end: start + length, bracketed: start > fieldStart) { return noMatch }
            if notesTimes { note(t) }
            timeField = marksField ? FieldPosition(field: field.number, offset: start &+ length) : .none
            return .time(t, contentStart: 0)
        case .noMatch:
            return noMatch
        case let .bad(why):
            return .bad(why)
        }
    }

    /// A line the format does not fit, named after the format `auto`
    /// settled on when it settled on one.
    private var noMatch: TimeReading {
        if let detected { return .bad(.noMatchDetected(format: detected.name)) }
        return .bad(.noMatch(format: format.name))
    }

    private mutating func readAnyFormat(_ line: UnsafeRawBufferPointer) -> TimeReading {
        timeField = .none
        if case .record = format {
            guard let (t, start) = parseRecordPrefix(line) else { return .bad(.recordWithoutTab) }
            note(t)
            return .time(t, contentStart: start)
        }
        guard let (text, fieldStart) = field.text(of: line) else { return .bad(field.missing) }
        guard fieldStart < text.count else { return noMatch }
        var start = fieldStart
        let active = detected ?? format
        if text[start] == UInt8(ascii: "["), !active.isBracketPattern { start += 1 }
        let result: FormatResult
        if case .auto = active {
            result = detect(text, from: start, bracketed: start > fieldStart)
        } else {
            result = parse(active, text, from: start, auto: format == .auto, bracketed: start > fieldStart)
        }
        switch result {
        case let .time(t, _):
            note(t)
            return .time(t, contentStart: 0)
        case .noMatch:
            return noMatch
        case let .bad(why):
            return .bad(why)
        }
    }

    /// `auto`: the first candidate that fits this line becomes the format for
    /// every later line. When none fits, the most telling failure is kept: a
    /// candidate that had the shape but an impossible value.
    private mutating func detect(_ line: UnsafeRawBufferPointer, from start: Int, bracketed: Bool) -> FormatResult {
        var firstBad: FormatResult?
        for candidate in TimeFormat.autoCandidates {
            let result = parse(candidate, line, from: start, auto: true, bracketed: bracketed)
            switch result {
            case .time:
                detected = candidate
                settle(on: NamedFormat(candidate))
                return result
            case .bad:
                if firstBad == nil { firstBad = result }
            case .noMatch:
                continue
            }
        }
        return firstBad ?? .noMatch
    }

    /// One format at `start`, with SPEC's boundary rule for named formats.
    /// `auto` keeps the plausibility guard on bare numbers for every line.
    private func parse(_ format: TimeFormat, _ line: UnsafeRawBufferPointer, from start: Int, auto: Bool,
                       bracketed: Bool) -> FormatResult {
        let result: FormatResult
        switch format {
        case .unix: result = parseUnixSeconds(line, from: start, plausibleOnly: auto)
        case .unixMs: result = parseUnixInteger(line, from: start, unit: .milliseconds, plausibleOnly: auto)
        case .unixUs: result = parseUnixInteger(line, from: start, unit: .microseconds, plausibleOnly: auto)
        case .unixNs: result = parseUnixInteger(line, from: start, unit: .nanoseconds, plausibleOnly: auto)
        case .offset: result = parseOffset(line, from: start)
        case .iso8601, .syslog, .clf: result = parseCalendar(format, line, from: start, context: context)
        case let .pattern(p): return parsePattern(p, line, from: start, context: context)
        case .auto, .record: preconditionFailure("TimestampReader: \(format) is not a single format")
        }
        if case let .time(_, length) = result, !fits(line, end: start + length, bracketed: bracketed) {
            return .noMatch
        }
        return result
    }

    /// SPEC's end rule for a named format that ended at `end` of `text`: in
    /// the rest of a line, it ends before a terminator byte; a whole value
    /// (a NAME's, or a field with `--delimiter`) it must fit whole, except
    /// for the `]` closing a skipped `[`.
    @inline(__always)
    private func fits(_ text: UnsafeRawBufferPointer, end: Int, bracketed: Bool) -> Bool {
        if end >= text.count { return true }
        if whole { return bracketed && end == text.count - 1 && text[end] == UInt8(ascii: "]") }
        return isTimestampTerminator(text[end])
    }

    private mutating func note(_ t: Instant) {
        if let latest = context.latest, latest >= t { return }
        context.latest = t
    }
}
