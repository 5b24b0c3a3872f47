// `clf`: Apache / NCSA common log stamps, with and without their brackets.

import Testing
@testable import PaceCore

extension Formats {
    @Suite struct CLFTests {
        @Test func specExample() {
            #expect(calendar(.clf, "29/Nov/2026:12:00:00 +0000") == .time(ns(nov29), length: 26))
        }

        @Test func inBracketsAsApacheWritesIt() {
            let line = #"203.0.113.9 - - [29/Nov/2026:12:00:00 +0000] "GET /index.html HTTP/1.1" 200 512"#
            #expect(readOne(line, format: .clf, field: 4) == at(ns(nov29)))
            #expect(readOne("[29/Nov/2026:12:00:00 +0000] GET /", format: .clf) == at(ns(nov29)))
            #expect(readOne("[29/Nov/2026:12:00:00 +0000]", format: .clf) == at(ns(nov29)))
            // The closing bracket is not required.
            #expect(readOne("29/Nov/2026:12:00:00 +0000 GET /", format: .clf) == at(ns(nov29)))
        }

        @Test func zones() {
            #expect(calendar(.clf, "29/Nov/2026:12:00:00 +0100") == .time(ns(nov29 - 3600), length: 26))
            #expect(calendar(.clf, "29/Nov/2026:12:00:00 -0800") == .time(ns(nov29 + 28_800), length: 26))
            #expect(calendar(.clf, "29/Nov/2026:12:00:00 +05:30") == .time(ns(nov29 - 19_800), length: 27))
            // More than one space before the zone, as aligned columns pad.
            #expect(calendar(.clf, "29/Nov/2026:12:00:00  -0700") == .time(ns(nov29 + 25_200), length: 27))
            #expect(calendar(.clf, "29/Nov/2026:12:00:00   +0100 GET") == .time(ns(nov29 - 3600), length: 28))
            // A TAB starts another column: what follows it is not the zone.
            #expect(calendar(.clf, "29/Nov/2026:12:00:00\t-0700") == .time(ns(nov29), length: 20))
            // No zone at all is UTC.
            #expect(calendar(.clf, "29/Nov/2026:12:00:00") == .time(ns(nov29), length: 20))
            #expect(readOne("[29/Nov/2026:12:00:00] GET", format: .clf) == at(ns(nov29)))
        }

        @Test func dayPaddingAndMonthCase() {
            #expect(calendar(.clf, "01/Dec/2026:08:00:00 +0000") == .time(ns(1_796_112_000), length: 26))
            #expect(calendar(.clf, "1/Dec/2026:08:00:00 +0000") == .time(ns(1_796_112_000), length: 25))
            #expect(calendar(.clf, "29/nov/2026:12:00:00 +0000") == .time(ns(nov29), length: 26))
            #expect(calendar(.clf, "29/NOV/2026:12:00:00 +0000") == .time(ns(nov29), length: 26))
        }

        @Test func millisecondsAfterTheSeconds() {
            #expect(calendar(.clf, "29/Nov/2026:12:00:00.250 +0000") == .time(ns(nov29, 250_000_000), length: 30))
        }

        @Test(arguments: [
            "31/Nov/2026:12:00:00 +0000", "29/Feb/2026:12:00:00 +0000", "00/Nov/2026:12:00:00 +0000",
            "29/Nov/2026:24:00:00 +0000", "29/Nov/2026:12:60:00 +0000", "29/Nov/2026:12:00:60 +0000",
            "29/Nov/2026:12:00:00 +2400",
        ])
        func impossible(_ text: String) {
            #expect(calendar(.clf, text) == .bad(.impossible(format: "clf")))
        }

        @Test(arguments: [
            "29/Nox/2026:12:00:00 +0000", "29/November/2026:12:00:00 +0000", "29/11/2026:12:00:00 +0000",
            "29/Nov/26:12:00:00 +0000", "29/Nov/2026 12:00:00 +0000", "29/Nov/2026:12:00 +0000",
            "29/Nov/2026:12:0:00 +0000", "29/Nov/2026:12:00:00 +", "29/Nov/2026:12:00:00 -x", "29/Nov/2026:12:00:00  -x",
            "129/Nov/2026:12:00:00 +0000", "Nov/29/2026:12:00:00 +0000",
        ])
        func wrongShape(_ text: String) {
            #expect(calendar(.clf, text) == .noMatch)
        }

        @Test(arguments: ["29/Nov/2026:12:00:00 +0000abc", "29/Nov/2026:12:00:00+0000", "29/Nov/2026:12:00:00:00"])
        func trailingTextIsNoMatch(_ text: String) {
            #expect(readOne(text, format: .clf) == .bad(.noMatch(format: "clf")))
        }
    }
}
