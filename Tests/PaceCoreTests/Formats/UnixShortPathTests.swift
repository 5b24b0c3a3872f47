// `unix` at field 1: a line that starts with ten digits and a dot is read
// without the format's dispatch (TimestampReader.read). These lines sit on
// the edges of that short path; each reading is what the named path gives,
// written out by hand (nov29 is 2026-11-29T12:00:00Z, from GNU date).

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct UnixShortPathTests {
        /// The readings of `lines`, one reader, `format` settled from line 1.
        private func read(_ lines: [String], format: TimeFormat = .unix) -> [TimeReading] {
            readAll(lines, format: format)
        }

        @Test func aLineStartingWithTenDigitsAndADotIsReadAtOnce() {
            #expect(read(["1795953600.000569 host03 GET"]) == [at(ns(nov29, 569_000))])
            // The time is the whole line, or followed by a tab or a `]`.
            #expect(read(["1795953600.123456"]) == [at(ns(nov29, 123_456_000))])
            #expect(read(["1795953600.123456\thost"]) == [at(ns(nov29, 123_456_000))])
            #expect(read(["1795953600.123456] x"]) == [at(ns(nov29, 123_456_000))])
            // `auto`, once it has settled on unix, takes the same path.
            #expect(read(["1795953600.5 a", "1795953601.000001 b"], format: .auto)
                    == [at(ns(nov29, 500_000_000)), at(ns(nov29 + 1, 1_000))])
        }

        @Test func aLineTheShortPathDoesNotFitIsReadAsBefore() {
            // Followed by a letter or a digit-like byte: no timestamp.
            #expect(read(["1795953600.123456x host"]) == [.bad(.noMatch(format: "unix"))])
            #expect(read(["1795953600.123456-1 host"]) == [.bad(.noMatch(format: "unix"))])
            // Other fractions, and a line too short for two words.
            #expect(read(["1795953600.1234567 x"]) == [at(ns(nov29, 123_456_700))])
            #expect(read(["1795953600.12 x"]) == [at(ns(nov29, 120_000_000))])
            #expect(read(["1795953600 x"]) == [at(ns(nov29))])
            // Leading blanks: field 1 starts after them.
            #expect(read(["  1795953600.000001 x"]) == [at(ns(nov29, 1_000))])
            // A bracket is skipped, as the named path skips it.
            #expect(read(["[1795953600.000002] x"]) == [at(ns(nov29, 2_000))])
        }
    }
}
