import Testing
@testable import PaceCore

@Suite("Durations")
struct DurationParserTests {
    @Test("every unit and decimal form", arguments: [
        ("300ms", 300_000_000), ("1.5s", 1_500_000_000), (".5s", 500_000_000), ("2m", 120_000_000_000),
        ("250us", 250_000), ("7ns", 7), ("1h", 3_600_000_000_000), ("0.25h", 900_000_000_000),
        ("5.", 0), ("1.0000000019s", 1_000_000_001), ("0.0000000009s", 0), ("1.5ns", 1),
        ("0.123456789123456789123m", 7_407_407_347), ("2562047h", 9_223_369_200_000_000_000),
    ] as [(String, Int64)])
    func valid(text: String, nanoseconds: Int64) {
        if text == "5." {
            #expect(parseDuration(text) == .failure(.missingUnit))
        } else {
            #expect(parseDuration(text) == .success(nanoseconds))
        }
    }

    @Test("errors", arguments: [
        ("", DurationError.empty), ("300", .missingUnit), ("s", .noNumber), ("1.5.5s", .unexpected(offset: 3)),
        ("3min", .unknownUnit), ("1e3s", .unknownUnit), ("-1s", .noNumber), ("+1s", .noNumber),
        ("2562048h", .tooLarge), ("99999999999999999999ns", .tooLarge), ("1s ", .unexpected(offset: 2)),
        ("1..5s", .unexpected(offset: 2)), ("1,5s", .unexpected(offset: 1)), ("1_000ms", .unexpected(offset: 1)),
        ("3 s", .unexpected(offset: 1)),
    ] as [(String, DurationError)])
    func invalid(text: String, error: DurationError) {
        #expect(parseDuration(text) == .failure(error))
    }
}
