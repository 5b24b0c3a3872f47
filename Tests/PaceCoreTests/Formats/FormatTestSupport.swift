// What the calendar-format tests share: the suite they all nest in (so that
// `swift test --filter Formats` selects them), and short ways to run a
// format's parser or a whole TimestampReader over string fixtures.
//
// Expected instants are written as epoch seconds taken from an independent
// source (GNU `date -u -d ... +%s`), never computed with pace's own code.

import Testing
@testable import PaceCore

@Suite enum Formats {}

/// Epoch seconds plus a fraction in nanoseconds, as an Instant.
func ns(_ seconds: Int64, _ nanoseconds: Int64 = 0) -> Instant {
    Instant(nanoseconds: seconds * 1_000_000_000 + nanoseconds)
}

/// 2026-11-29T12:00:00Z, SPEC's example instant.
let nov29: Int64 = 1_795_953_600

/// The year the tests pass as `--year` unless they say otherwise.
let testYear = 2026

func withBytes<R>(_ text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var copy = text
    return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
}

/// One named calendar format's parser at the start of `text`.
func calendar(_ format: TimeFormat, _ text: String, year: Int = testYear, latest: Instant? = nil) -> FormatResult {
    withBytes(text) { parseCalendar(format, $0, from: 0, context: YearContext(defaultYear: year, latest: latest)) }
}

/// A pattern that must compile.
func compiled(_ source: String) -> TimePattern {
    switch TimePattern.compile(source) {
    case let .success(p): return p
    case let .failure(e): preconditionFailure("test pattern does not compile: \(e)")
    }
}

/// A pattern matched at the start of `text`.
func match(_ source: String, _ text: String, year: Int = testYear, latest: Instant? = nil) -> FormatResult {
    let p = compiled(source)
    return withBytes(text) { parsePattern(p, $0, from: 0, context: YearContext(defaultYear: year, latest: latest)) }
}

/// Lines read in order by one reader, as replay does.
func readAll(_ lines: [String], format: TimeFormat, field: Int = 1, year: Int = testYear) -> [TimeReading] {
    var reader = TimestampReader(format: format, timeField: field, defaultYear: year)
    return lines.map { line in withBytes(line) { reader.read($0) } }
}

func readOne(_ line: String, format: TimeFormat, field: Int = 1, year: Int = testYear) -> TimeReading {
    readAll([line], format: format, field: field, year: year)[0]
}

/// The reading of a line whose time is `t`.
func at(_ t: Instant) -> TimeReading { .time(t, contentStart: 0) }

func pattern(_ source: String) -> TimeFormat { .pattern(compiled(source)) }
