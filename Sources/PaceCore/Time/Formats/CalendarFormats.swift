// PLACEHOLDER (issue 3 replaces this file): iso8601, clf, syslog and
// strptime-style patterns. Until then they match nothing.

/// A compiled strptime-style `--time-format` pattern.
public struct TimePattern: Equatable, Sendable {
    /// The pattern as the user typed it.
    public let source: String

    /// Compiles `source`; the error message names the unknown directive.
    public static func compile(_ source: String) -> Result<TimePattern, PatternError> {
        .success(TimePattern(source: source))
    }

    /// True when the pattern begins with `[` (it matches the bracket itself).
    var beginsWithBracket: Bool { source.utf8.first == UInt8(ascii: "[") }
}

/// Why a pattern does not compile; `description` follows `pace: `.
public struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}

/// Parses a calendar timestamp (`.iso8601`, `.clf`, `.syslog`) at `start`.
func parseCalendar(_ format: TimeFormat, _ text: UnsafeRawBufferPointer, from start: Int, context: YearContext) -> FormatResult {
    .noMatch
}

/// Matches a pattern at `start` (a prefix of the text; what follows is free).
func parsePattern(_ pattern: TimePattern, _ text: UnsafeRawBufferPointer, from start: Int, context: YearContext) -> FormatResult {
    .noMatch
}
