// The timestamp formats replay understands, why a line's time is bad, and the
// named formats the timestamp reader's short path reads.

/// A `--time-format` value.
package enum TimeFormat: Equatable, Sendable {
    case auto
    case unix
    case unixMs
    case unixUs
    case unixNs
    case iso8601
    case syslog
    case clf
    case offset
    case record
    case pattern(TimePattern)

    /// The named formats, as typed on the command line.
    package static let names: [(String, TimeFormat)] = [
        ("auto", .auto), ("unix", .unix), ("unix-ms", .unixMs), ("unix-us", .unixUs),
        ("unix-ns", .unixNs), ("iso8601", .iso8601),
        ("syslog", .syslog), ("clf", .clf), ("offset", .offset), ("record", .record),
    ]

    /// The formats `auto` tries, in SPEC's order (`record` is never guessed).
    static let autoCandidates: [TimeFormat] = [.iso8601, .clf, .syslog, .unix, .unixMs, .unixUs, .unixNs, .offset]

    package var name: String {
        if case let .pattern(p) = self { return p.source }
        return Self.names.first { $0.1 == self }!.0
    }
}

/// Why a replay line has no usable time. `description` completes the message
/// `pace: line N: <description>`.
package enum BadTime: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line has fewer fields than `--time-field`.
    case missingField(Int)
    /// The line has no field named so (`--time-field NAME`).
    case missingName(String)
    /// Nothing at the time field fits the format (named, for the message).
    case noMatch(format: String)
    /// Nothing fits the format `auto` settled on at an earlier line.
    case noMatchDetected(format: String)
    /// It fits, but names an impossible date or time (month 13, Feb 30, 24:00).
    case impossible(format: String)
    /// It fits, but lies outside what pace can represent (`representableTimes`).
    case outOfRange
    /// The `record` prefix lacks its TAB.
    case recordWithoutTab

    package var description: String {
        switch self {
        case let .missingField(n): return "no time field \(n) (the line has fewer fields)"
        case let .missingName(name): return "no time field '\(name)' (no such JSON member or logfmt key)"
        case let .noMatch(format) where format == "auto":
            return "no timestamp recognised (tried iso8601, clf, syslog, unix, unix-ms, unix-us, unix-ns, offset; see --time-format)"
        case let .noMatch(format): return "timestamp does not match --time-format \(format)"
        case let .noMatchDetected(format):
            return "timestamp does not match \(format), the format --time-format auto found on the first timestamped line"
        case let .impossible(format): return "impossible date or time for --time-format \(format)"
        case .outOfRange: return "timestamp out of range (pace handles \(representableTimes))"
        case .recordWithoutTab: return "not a --record line (expected seconds and a TAB)"
        }
    }
}

/// The outcome of one format's parser at the start of the time field.
enum FormatResult: Equatable {
    /// The time and the number of bytes the timestamp took.
    case time(Instant, length: Int)
    /// The text does not have this format's shape.
    case noMatch
    /// It has the shape but is impossible or out of range.
    case bad(BadTime)
}

/// What the calendar formats need to resolve a year-less stamp: `--year` for
/// the first, then the latest time seen (SPEC's nearest-year rule).
struct YearContext: Equatable {
    var defaultYear: Int
    var latest: Instant?
}

/// The first and last instant pace can represent, Int64 nanoseconds since
/// 1970 (Int64.min and Int64.max), for messages: the bounds are exact, as
/// the parsers accept exactly these.
package let representableTimes = "1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z"

/// The years that hold those instants, `--year`'s range. Only part of the
/// first and the last is representable; a timestamp outside that part is
/// out of range as any is.
package let minimumYear = 1677
package let maximumYear = 2262

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
    // The byte that ends nearly every timestamp, decided first.
    if byte == UInt8(ascii: " ") { return true }
    if digit(byte) != nil || isASCIILetter(byte) { return false }
    switch byte {
    case UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "+"): return false
    default: return true
    }
}

extension TimestampReader {
    /// The formats the short path reads (a pattern and `record` are not).
    enum NamedFormat {
        case unix, unixMs, unixUs, unixNs, offset, iso8601, clf, syslog

        /// Its timestamps hold no blank, so where one ends is in its field
        /// (a calendar format may have a space in it).
        var isOneField: Bool {
            switch self {
            case .unix, .unixMs, .unixUs, .unixNs, .offset: return true
            case .iso8601, .clf, .syslog: return false
            }
        }

        init?(_ format: TimeFormat) {
            switch format {
            case .unix: self = .unix
            case .unixMs: self = .unixMs
            case .unixUs: self = .unixUs
            case .unixNs: self = .unixNs
            case .offset: self = .offset
            case .iso8601: self = .iso8601
            case .clf: self = .clf
            case .syslog: self = .syslog
            case .auto, .record, .pattern: return nil
            }
        }
    }
}
