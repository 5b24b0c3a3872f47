// `unix-us` and `unix-ns` given explicitly: any integer, a sign allowed, the
// unit applied exactly, and overflow an out-of-range timestamp.

import Testing
@testable import PaceCore
import PaceTesting

extension Formats {
    @Suite struct UnixIntegerTests {
        @Test func microseconds() {
            #expect(readOne("1795953600123456 x", format: .unixUs) == at(ns(nov29, 123_456_000)))
            // journald's __REALTIME_TIMESTAMP, any digit count once explicit.
            #expect(readOne("90 x", format: .unixUs) == at(90_000))
            #expect(readOne("-1500000 x", format: .unixUs) == at(-1_500_000_000))
        }

        @Test func nanoseconds() {
            #expect(readOne("1795953600123456789 x", format: .unixNs) == at(ns(nov29, 123_456_789)))
            #expect(readOne("7 x", format: .unixNs) == at(7))
            #expect(readOne("9223372036854775807 x", format: .unixNs) == at(Instant.max))
            #expect(readOne("9223372036854775808 x", format: .unixNs) == .bad(.outOfRange))
        }

        /// The earliest instant, -2^63 ns, is read as every format reads it
        /// (iso8601's 1677-09-21T00:12:43.145224192Z); one before it is not.
        @Test func earliestInstant() {
            #expect(readOne("-9223372036854775808 x", format: .unixNs) == at(Instant.min))
            #expect(readOne("-9223372036854775809 x", format: .unixNs) == .bad(.outOfRange))
            #expect(readOne("-9223372036.854775808 x", format: .unix) == at(Instant.min))
            #expect(readOne("-9223372036.854775809 x", format: .unix) == .bad(.outOfRange))
            #expect(readOne("-9223372036854775808ns x", format: .offset) == at(Instant.min))
            #expect(readOne("-9223372036854775809ns x", format: .offset) == .bad(.outOfRange))
            #expect(readOne("+9223372036854775808ns x", format: .offset) == .bad(.outOfRange))
            #expect(readOne("-9223372036854775 x", format: .unixUs) == at(-9_223_372_036_854_775_000))
        }

        @Test func overflowAndShape() {
            // 9223372036854776 microseconds is past Int64 nanoseconds.
            #expect(readOne("9223372036854776 x", format: .unixUs) == .bad(.outOfRange))
            #expect(readOne("x", format: .unixUs) == .bad(.noMatch(format: "unix-us")))
            // A fraction is no integer: the stamp must end before the dot.
            #expect(readOne("1795953600123456.5 x", format: .unixUs) == .bad(.noMatch(format: "unix-us")))
        }
    }
}
