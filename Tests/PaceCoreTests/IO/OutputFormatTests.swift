import Testing
@testable import PaceCore

@Suite("Emitted times")
struct OutputFormatTests {
    @Test("seconds with 6 decimals, floored from nanoseconds", arguments: [
        (0, "0.000000"), (560_000_000, "0.560000"), (999, "0.000000"), (1_000, "0.000001"),
        (1_795_953_600_123_456_789, "1795953600.123456"), (-1, "-0.000001"), (-1_000, "-0.000001"),
        (-1_001, "-0.000002"), (-1_500_000_000, "-1.500000"), (Int64.max, "9223372036.854775"),
        (Int64.min, "-9223372036.854776"),
    ] as [(Int64, String)])
    func seconds(time: Int64, text: String) {
        #expect(secondsString(Instant(nanoseconds: time)) == text)
    }

    @Test("civil year of an instant (UTC)", arguments: [
        (0, 1970), (-1, 1969), (1_795_953_600, 2026), (1_798_761_599, 2026), (1_798_761_600, 2027),
        (951_782_400, 2000), (-9_223_372_036, 1677), (9_223_372_036, 2262),
    ] as [(Int64, Int)])
    func year(seconds: Int64, year: Int) {
        #expect(civilYear(of: Instant(nanoseconds: seconds * 1_000_000_000)) == year)
    }
}
