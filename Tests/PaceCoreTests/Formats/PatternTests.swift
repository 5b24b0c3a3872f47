// strptime-style patterns: compiling, then each directive on its own, then
// the rules around them (blanks, literals, prefixes, impossible values).

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct PatternCompileTests {
        @Test func unknownDirectiveNamesItAndThePattern() {
            #expect(TimePattern.compile("%Y %Q") == .failure(PatternError(description: "unknown directive '%Q' in --time-format '%Y %Q'")))
            #expect(TimePattern.compile("%-d") == .failure(PatternError(description: "unknown directive '%-' in --time-format '%-d'")))
            // A multi-byte character is named whole.
            #expect(TimePattern.compile("%é") == .failure(PatternError(description: "unknown directive '%é' in --time-format '%é'")))
        }

        @Test func loneTrailingPercent() {
            #expect(TimePattern.compile("%H:%") == .failure(PatternError(description: "incomplete directive '%' at the end of --time-format '%H:%'")))
        }

        @Test func everyDirectiveOfSPECCompiles() {
            for letter in ["Y", "y", "m", "d", "e", "H", "M", "S", "f", "L", "b", "a", "z", "s", "%"] {
                let source = "x%" + letter
                guard case let .success(p) = TimePattern.compile(source) else {
                    Issue.record("%\(letter) does not compile")
                    continue
                }
                #expect(p.source == source)
            }
        }

        @Test func bracket() {
            #expect(compiled("[%m.%d %H:%M:%S]").beginsWithBracket)
            #expect(!compiled("%m.%d [%H]").beginsWithBracket)
        }

        @Test func spacesCollapseIntoOneRunOfBlanks() {
            #expect(compiled("%H  %M").ops == [.hour, .blanks, .minute])
            #expect(compiled("%H\t%M").ops == [.hour, .literal(0x09), .minute])
        }
    }

    @Suite struct PatternDirectiveTests {
        @Test func fullDateAndTime() {
            #expect(match("%Y-%m-%d %H:%M:%S", "2026-11-29 12:00:00 x") == .time(ns(nov29), length: 19))
        }

        /// `%m %d %H %M %S` take one or two digits.
        @Test func unpaddedNumbers() {
            #expect(match("%Y-%m-%d %H:%M:%S", "2026-1-5 1:2:3") == .time(ns(1_767_574_923), length: 14))
            #expect(match("%Y-%m-%d %H:%M:%S", "2026-01-05 01:02:03") == .time(ns(1_767_574_923), length: 19))
        }

        @Test func fourDigitYear() {
            #expect(match("%Y", "2026") == .time(ns(1_767_225_600), length: 4))
            #expect(match("%Y", "202") == .noMatch)
            #expect(match("%Y", "20x6") == .noMatch)
        }

        @Test func twoDigitYearPivotsAt69() {
            #expect(match("%y-%m-%d", "69-01-01") == .time(ns(-31_536_000), length: 8))
            #expect(match("%y-%m-%d", "68-01-01") == .time(ns(3_092_601_600), length: 8))
            #expect(match("%y-%m-%d %H:%M:%S", "99-12-31 23:59:59") == .time(ns(946_684_799), length: 17))
            #expect(match("%y-%m-%d", "00-01-01") == .time(ns(946_684_800), length: 8))
            #expect(match("%y", "2") == .noMatch)
        }

        /// Greedy two-digit fields read packed stamps (HDFS's `081109 203615`).
        @Test func packedDigits() {
            #expect(match("%y%m%d %H%M%S", "081109 203615 148 INFO") == .time(ns(1_226_262_975), length: 13))
        }

        @Test func spacePaddedDay() {
            #expect(match("%b %e %H:%M:%S", "Jul  1 09:00:55 host") == .time(ns(1_782_896_455), length: 15))
            #expect(match("%b %e %H:%M:%S", "Jul 1 09:00:55 host") == .time(ns(1_782_896_455), length: 14))
            #expect(match("%b %e %H:%M:%S", "Jul 01 09:00:55 host") == .time(ns(1_782_896_455), length: 15))
            // `%e` itself takes the padding space when the pattern has none.
            #expect(match("%b%e %H:%M:%S", "Jul 1 09:00:55") == .time(ns(1_782_896_455), length: 14))
            #expect(match("%e", "x") == .noMatch)
        }

        @Test func fractionDigits() {
            #expect(match("%H:%M:%S.%f", "12:34:56.5") == .time(ns(45_296, 500_000_000), length: 10))
            #expect(match("%H:%M:%S.%f", "12:34:56.000001") == .time(ns(45_296, 1_000), length: 15))
            #expect(match("%H:%M:%S.%f", "12:34:56.123456789123") == .time(ns(45_296, 123_456_789), length: 21))
            #expect(match("%H:%M:%S.%f", "12:34:56.") == .noMatch)
        }

        /// `%L` is whole milliseconds: `:11` is 11 ms, not 110 (HealthApp).
        @Test func wholeMilliseconds() {
            #expect(match("%S:%L", "00:11|x") == .time(ns(0, 11_000_000), length: 5))
            #expect(match("%S:%L", "00:5") == .time(ns(0, 5_000_000), length: 4))
            #expect(match("%S:%L", "00:935") == .time(ns(0, 935_000_000), length: 6))
            // At most three digits; what follows the pattern is free.
            #expect(match("%S:%L", "00:1234") == .time(ns(0, 123_000_000), length: 6))
            #expect(match("%S:%L", "00:") == .noMatch)
        }

        @Test func monthNamesAnyCaseFullOrShort() {
            for text in ["Nov 29 2026", "nov 29 2026", "NOV 29 2026", "November 29 2026", "NOVEMBER 29 2026"] {
                #expect(match("%b %d %Y", text) == .time(ns(nov29 - 43_200), length: text.utf8.count), "\(text)")
            }
            #expect(match("%b %d %Y", "May 1 2026") == .time(ns(1_777_593_600), length: 10))
            #expect(match("%b %d %Y", "Nox 29 2026") == .noMatch)
            #expect(match("%b %d %Y", "No 29 2026") == .noMatch)
            // A name that is neither the abbreviation nor the full name leaves
            // its extra letters to the rest of the pattern.
            #expect(match("%b %d %Y", "Sept 29 2026") == .noMatch)
        }

        @Test func weekdayNamesAreReadAndIgnored() {
            #expect(match("%a %b %d %H:%M:%S %Y", "Sun Dec 04 04:47:44 2005") == .time(ns(1_133_671_664), length: 24))
            #expect(match("%a %b %d %H:%M:%S %Y", "sunday Dec 04 04:47:44 2005") == .time(ns(1_133_671_664), length: 27))
            // The weekday is not checked against the date.
            #expect(match("%a %b %d %H:%M:%S %Y", "Mon Dec 04 04:47:44 2005") == .time(ns(1_133_671_664), length: 24))
            #expect(match("%a %b %d %H:%M:%S %Y", "Sux Dec 04 04:47:44 2005") == .noMatch)
        }

        @Test func zones() {
            let p = "%Y-%m-%dT%H:%M:%S%z"
            #expect(match(p, "2026-11-29T12:00:00Z") == .time(ns(nov29), length: 20))
            #expect(match(p, "2026-11-29T12:00:00+01") == .time(ns(nov29 - 3600), length: 22))
            #expect(match(p, "2026-11-29T12:00:00+0100") == .time(ns(nov29 - 3600), length: 24))
            #expect(match(p, "2026-11-29T12:00:00+01:00") == .time(ns(nov29 - 3600), length: 25))
            #expect(match(p, "2026-11-29T12:00:00-05:30") == .time(ns(nov29 + 19_800), length: 25))
            #expect(match(p, "2026-11-29T12:00:00") == .noMatch)
            #expect(match(p, "2026-11-29T12:00:00+1") == .noMatch)
            #expect(match(p, "2026-11-29T12:00:00+25:00") == .bad(.impossible(format: p)))
            #expect(match("%Y-%m-%d %H:%M:%S %z", "2026-11-29 12:00:00 +0000") == .time(ns(nov29), length: 25))
        }

        @Test func epochSeconds() {
            #expect(match("%s", "1795953600 x") == .time(ns(nov29), length: 10))
            #expect(match("%s", "0") == .time(0, length: 1))
            #expect(match("%s", "-1") == .time(ns(-1), length: 2))
            #expect(match("%s.%f", "1795953600.25") == .time(ns(nov29, 250_000_000), length: 13))
            #expect(match("%s.%f", "-1.5") == .time(-1_500_000_000, length: 4))
            #expect(match("%s", "99999999999999999999999999") == .bad(.outOfRange))
            #expect(match("%s", "9223372037") == .bad(.outOfRange))
            // The earliest instant, -2^63 ns, and one before it.
            #expect(match("%s.%f", "-9223372036.854775808") == .time(.min, length: 21))
            #expect(match("%s.%f", "-9223372036.854775809") == .bad(.outOfRange))
            #expect(match("%s.%f", "9223372036.854775808") == .bad(.outOfRange))
            #expect(match("%s", "x") == .noMatch)
            #expect(match("%s", "-") == .noMatch)
        }

        /// `%s` fixes the instant; other directives beside it are matched
        /// but do not move it.
        @Test func epochSecondsWin() {
            #expect(match("%s %Y", "1795953600 1999") == .time(ns(nov29), length: 15))
        }

        @Test func percentLiteral() {
            #expect(match("%%%H", "%12") == .time(ns(43_200), length: 3))
            #expect(match("%%%H", "12") == .noMatch)
        }

        @Test func aSpaceMatchesOneOrMoreBlanks() {
            #expect(match("%H %M", "12 30") == .time(ns(45_000), length: 5))
            #expect(match("%H %M", "12 \t  30") == .time(ns(45_000), length: 8))
            #expect(match("%H %M", "1230") == .noMatch)
            #expect(match("%H  %M", "12 30") == .time(ns(45_000), length: 5))
        }

        @Test func otherBytesMatchThemselves() {
            #expect(match("%H:%M", "12-30") == .noMatch)
            #expect(match("T%H", "t12") == .noMatch)
            #expect(match("at %H", "at 12") == .time(ns(43_200), length: 5))
        }

        /// A pattern matches a prefix; what follows is not checked.
        @Test func prefixMatch() {
            #expect(match("%H:%M", "12:30:45trailing") == .time(ns(45_000), length: 5))
            #expect(match("%Y-%m-%d %H:%M:%S,", "2016-09-28 04:30:30, Info") == .time(ns(1_475_037_030), length: 20))
        }

        @Test func withoutADateTheDayIs19700101() {
            #expect(match("%H:%M:%S", "12:34:56") == .time(ns(45_296), length: 8))
            // Even after a much later line: no year inference without a date.
            #expect(match("%H:%M:%S", "12:34:56", latest: ns(nov29)) == .time(ns(45_296), length: 8))
        }

        @Test(arguments: [
            ("%Y-%m-%d", "2026-13-01"), ("%Y-%m-%d", "2026-02-29"), ("%Y-%m-%d", "2026-00-01"),
            ("%Y-%m-%d", "2026-04-31"), ("%H", "24"), ("%H:%M", "12:60"), ("%H:%M:%S", "23:59:60"),
            ("%d", "0"), ("%m/%d", "13/01"), ("%m/%d", "02/30"),
        ])
        func impossible(_ source: String, _ text: String) {
            #expect(match(source, text) == .bad(.impossible(format: source)))
        }

        @Test(arguments: [
            ("%Y-%m-%d", "2026-11"), ("%m", "x"), ("%H:%M:%S", "12:30"), ("%H:%M:%S", "12::30"),
            ("%b", "1"), ("%z", "x"), ("%Y", ""), ("[%H]", "12]"),
        ])
        func missingPieces(_ source: String, _ text: String) {
            #expect(match(source, text) == .noMatch)
        }

        @Test func outOfRange() {
            #expect(match("%Y-%m-%d", "1677-09-20") == .bad(.outOfRange))
            #expect(match("%Y-%m-%d", "2262-04-12") == .bad(.outOfRange))
        }

        @Test func throughTheReader() {
            #expect(readOne("2026-11-29 12:00:00 x", format: pattern("%Y-%m-%d %H:%M:%S")) == at(ns(nov29)))
            // A pattern that does not begin with `[` skips it as named formats do...
            #expect(readOne("[10.30 16:49:06] chrome.exe", format: pattern("%m.%d %H:%M:%S")) == at(ns(1_793_378_946)))
            // ...and one that does matches the bracket itself.
            #expect(readOne("[10.30 16:49:06] chrome.exe", format: pattern("[%m.%d %H:%M:%S]")) == at(ns(1_793_378_946)))
            #expect(readOne("10.30 16:49:06 chrome.exe", format: pattern("[%m.%d %H:%M:%S]"))
                == .bad(.noMatch(format: "[%m.%d %H:%M:%S]")))
            #expect(readOne("2026-13-01", format: pattern("%Y-%m-%d")) == .bad(.impossible(format: "%Y-%m-%d")))
        }
    }
}
