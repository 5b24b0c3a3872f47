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
public enum TimeReading: Equatable {
    /// The line's time; `contentStart` is where the line's own bytes begin
    /// (past the prefix for `--time-format record`, else 0).
    case time(Instant, contentStart: Int)
    case bad(BadTime)
}

public struct TimestampReader {
    public let format: TimeFormat
    /// The format `auto` settled on, once a line fitted one.
    public private(set) var detected: TimeFormat?
    /// 1-based field where the timestamp starts.
    public let timeField: Int
    private var context: YearContext
    /// The named format every line is read with, once known.
    private var named: NamedFormat?
    /// `auto`'s plausibility guard on bare numbers applies.
    private let guarded: Bool

    /// The formats the short path reads (a pattern and `record` are not).
    private enum NamedFormat {
        case unix, unixMs, offset, iso8601, clf, syslog

        init?(_ format: TimeFormat) {
            switch format {
            case .unix: self = .unix
            case .unixMs: self = .unixMs
            case .offset: self = .offset
            case .iso8601: self = .iso8601
            case .clf: self = .clf
            case .syslog: self = .syslog
            case .auto, .record, .pattern: return nil
            }
        }
    }

    public init(format: TimeFormat, timeField: Int = 1, defaultYear: Int) {
        self.format = format
        self.timeField = timeField
        self.context = YearContext(defaultYear: defaultYear, latest: nil)
        named = NamedFormat(format)
        guarded = format == .auto
    }

    /// The time of `line` (its bytes without the `\n`; a final `\r` is allowed).
    @inline(__always)
    public mutating func read(_ line: UnsafeRawBufferPointer) -> TimeReading {
        if let named { return read(line, named) }
        return readAnyFormat(line)
    }

    /// `read` for a named format: the same steps as `readAnyFormat` takes
    /// for one (a named format is not a pattern, so an opening `[` is
    /// skipped). Its closing switch repeats `readAnyFormat`'s on purpose:
    /// sharing it through a helper cost 1% of replay's instructions (the
    /// fast path stopped inlining as well).
    @inline(__always)
    private mutating func read(_ line: UnsafeRawBufferPointer, _ named: NamedFormat) -> TimeReading {
        guard var start = fieldStart(line, field: timeField) else { return .bad(.missingField(timeField)) }
        if line[start] == UInt8(ascii: "[") { start += 1 }
        let result: FormatResult
        switch named {
        case .unix: result = parseUnixSeconds(line, from: start, plausibleOnly: guarded)
        case .unixMs: result = parseUnixMilliseconds(line, from: start, plausibleOnly: guarded)
        case .offset: result = parseOffset(line, from: start)
        case .iso8601: result = parseCalendar(.iso8601, line, from: start, context: context)
        case .clf: result = parseCalendar(.clf, line, from: start, context: context)
        case .syslog: result = parseCalendar(.syslog, line, from: start, context: context)
        }
        switch result {
        case let .time(t, length):
            let end = start + length
            if end < line.count && !isTimestampTerminator(line[end]) { return noMatch }
            note(t)
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
        if case .record = format {
            guard let (t, start) = parseRecordPrefix(line) else { return .bad(.recordWithoutTab) }
            note(t)
            return .time(t, contentStart: start)
        }
        guard var start = fieldStart(line, field: timeField) else { return .bad(.missingField(timeField)) }
        let active = detected ?? format
        if line[start] == UInt8(ascii: "["), !active.isBracketPattern { start += 1 }
        let result: FormatResult
        if case .auto = active {
            result = detect(line, from: start)
        } else {
            result = parse(active, line, from: start, auto: format == .auto)
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
    private mutating func detect(_ line: UnsafeRawBufferPointer, from start: Int) -> FormatResult {
        var firstBad: FormatResult?
        for candidate in TimeFormat.autoCandidates {
            let result = parse(candidate, line, from: start, auto: true)
            switch result {
            case .time:
                detected = candidate
                named = NamedFormat(candidate)
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
    private func parse(_ format: TimeFormat, _ line: UnsafeRawBufferPointer, from start: Int, auto: Bool) -> FormatResult {
        let result: FormatResult
        switch format {
        case .unix: result = parseUnixSeconds(line, from: start, plausibleOnly: auto)
        case .unixMs: result = parseUnixMilliseconds(line, from: start, plausibleOnly: auto)
        case .offset: result = parseOffset(line, from: start)
        case .iso8601, .syslog, .clf: result = parseCalendar(format, line, from: start, context: context)
        case let .pattern(p): return parsePattern(p, line, from: start, context: context)
        case .auto, .record: preconditionFailure("TimestampReader: \(format) is not a single format")
        }
        if case let .time(_, length) = result {
            let end = start + length
            if end < line.count && !isTimestampTerminator(line[end]) { return .noMatch }
        }
        return result
    }

    private mutating func note(_ t: Instant) {
        if let latest = context.latest, latest >= t { return }
        context.latest = t
    }
}

extension TimeFormat {
    var isBracketPattern: Bool {
        if case let .pattern(p) = self { return p.beginsWithBracket }
        return false
    }
}

/// SPEC: a named format ends at the end of the line or before a byte that is
/// not a letter, a digit, or one of `- : . / +`.
@inline(__always)
func isTimestampTerminator(_ byte: UInt8) -> Bool {
    if digit(byte) != nil || isASCIILetter(byte) { return false }
    switch byte {
    case UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "+"): return false
    default: return true
    }
}

// MARK: - Fields

@inline(__always)
func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

/// The length of `line` without a final `\r`: a `\r` ending the line belongs
/// to no field.
@inline(__always)
func contentLength(_ line: UnsafeRawBufferPointer) -> Int {
    let n = line.count
    return n > 0 && line[n - 1] == 0x0D ? n - 1 : n
}

/// The first line without the UTF-8 byte-order mark it may start with: SPEC
/// ignores one at the very start of the input for fields and timestamps
/// (the line is still written out as read). Called for line 1 only.
func withoutByteOrderMark(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    guard line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF else { return line }
    return UnsafeRawBufferPointer(rebasing: line[3...])
}

/// Where field `field` (1-based) starts, fields being separated by runs of
/// spaces and tabs, leading blanks ignored (as awk does); nil when the line
/// has fewer fields.
@inline(__always)
func fieldStart(_ line: UnsafeRawBufferPointer, field: Int) -> Int? {
    let n = contentLength(line)
    var i = 0
    var seen = 0
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
public func fieldRange(_ line: UnsafeRawBufferPointer, field: Int) -> Range<Int> {
    guard let start = fieldStart(line, field: field) else { return 0..<0 }
    return start..<nextBlank(line, from: start, end: contentLength(line))
}

/// The first space or tab in `line[i..<end]`, or `end`. Fields are words of
/// a few to a few dozen bytes, so they are crossed eight bytes at a time:
/// a byte equal to c is a zero byte of word ^ (c in every byte), and
/// (x - 0x01...01) & ~x & 0x80...80 marks zero bytes of x. That mark can be
/// wrong only in bytes above a real zero byte (the borrow runs on), never
/// below the first one, which is the one looked for.
@inline(__always)
func nextBlank(_ line: UnsafeRawBufferPointer, from start: Int, end: Int) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var i = start
    while i &+ 8 <= end {
        let word = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let spaces = word ^ (ones &* 0x20)
        let tabs = word ^ (ones &* 0x09)
        let blanks = ((spaces &- ones) & ~spaces | (tabs &- ones) & ~tabs) & highs
        if blanks != 0 { return i &+ (blanks.trailingZeroBitCount >> 3) }
        i &+= 8
    }
    while i < end && !isBlank(line[i]) { i &+= 1 }
    return i
}
