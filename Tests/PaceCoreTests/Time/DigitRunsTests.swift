// The word-at-a-time digit reader and the fast path of `unix` timestamps
// built on it, held against the digit-by-digit code they stand in for. The
// fast path must decide exactly as the slow one on every input, so the
// inputs are random strings over the bytes that matter (digits, `.`, `-`,
// `[`, blanks, letters, and bytes just outside `0`...`9`) at every offset and
// length, including the last eight bytes of a buffer where no word fits.

@testable import PaceCore
import PaceTesting
import Testing

/// The digits at `text[i...]` (at most 8), one byte at a time.
private func referenceDigits(_ text: [UInt8], at i: Int) -> (UInt64, Int) {
    var value: UInt64 = 0
    var count = 0
    while count < 8, i + count < text.count, (0x30...0x39).contains(text[i + count]) {
        value = value * 10 + UInt64(text[i + count] - 0x30)
        count += 1
    }
    return (value, count)
}

/// `parseUnixSeconds` (its fast paths included) decides `text` from `start`
/// as the digit-by-digit parser does, with and without `auto`'s guard.
private func expectParsedAsByDigit(_ text: [UInt8], from start: Int) {
    for plausibleOnly in [false, true] {
        text.withUnsafeBytes { raw in
            let fast = parseUnixSeconds(raw, from: start, plausibleOnly: plausibleOnly)
            let slow = parseUnixSecondsByDigit(raw, from: start, plausibleOnly: plausibleOnly)
            #expect(fast == slow, "\(String(decoding: text, as: UTF8.self)) \(text) from \(start), plausibleOnly \(plausibleOnly)")
        }
    }
}

struct DigitRunsTests {
    @Test func everyByteValueEndsARunExactlyWhereItStands() {
        // Each byte value at each position of a word of digits.
        for byte in 0...255 {
            for position in 0..<8 {
                var text = Array("12345678901234567".utf8)
                text[position] = UInt8(byte)
                text.withUnsafeBytes { raw in
                    let (value, count) = readDigits(raw, at: 0)
                    let (expectedValue, expectedCount) = referenceDigits(text, at: 0)
                    #expect(count == expectedCount, "byte \(byte) at \(position)")
                    #expect(value == expectedValue, "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test func eightDigitsConvertToTheirValue() {
        var mix = SplitMix64(seed: 8)
        for _ in 0..<20_000 {
            let n = mix.below(100_000_000)
            let text = Array(String(n).leftPadded(to: 8).utf8)
            text.withUnsafeBytes { raw in
                #expect(readDigits(raw, at: 0) == (UInt64(n), 8))
            }
        }
    }

    @Test func runsAtEveryOffsetMatchTheByteByByteReading() {
        var mix = SplitMix64(seed: 1)
        let alphabet = Array("0123456789012345678901234567890123456789./:-[ x\u{7F}".utf8) + [0x2F, 0x3A, 0xFF, 0xFA, 0x00]
        for _ in 0..<20_000 {
            let text = (0..<mix.below(24)).map { _ in alphabet[mix.below(alphabet.count)] }
            text.withUnsafeBytes { raw in
                for i in 0...text.count {
                    let (value, count) = readDigits(raw, at: i)
                    let (expectedValue, expectedCount) = referenceDigits(text, at: i)
                    #expect(count == expectedCount && value == expectedValue, "\(text) at \(i)")
                }
            }
        }
    }

    @Test func unixSecondsFastPathDecidesAsTheDigitByDigitParser() {
        var mix = SplitMix64(seed: 2)
        let pieces = ["1795953600", "179595360", "1", "0", "00", "12345678", "123456789012345678",
                      "1234567890123456", "12345678901234567", "99999999999", "9223372036", "9223372037",
                      ".", ".000569", ".5", ".123456789", ".1234567891", ".12345678", "-", "[", " ", "\t",
                      "x", "ms", ":", "/", "+", "\r", "e", "Z"]
        for _ in 0..<50_000 {
            var text: [UInt8] = []
            for _ in 0..<(1 + mix.below(4)) { text += Array(pieces[mix.below(pieces.count)].utf8) }
            let start = mix.below(2) == 0 ? 0 : mix.below(text.count + 1)
            expectParsedAsByDigit(text, from: start)
        }
    }

    @Test func tenDigitShapeDecidesAsTheDigitByDigitParser() {
        // Ten digits and a dot, then 0 to 11 digits and a tail: the shape
        // parseTenDigitSeconds reads, and every near miss of it (a byte other
        // than the dot, a digit short, the buffer ending inside it).
        var mix = SplitMix64(seed: 10)
        let tails = ["", " host03 GET", " host03 GET /api", "\t", "Z", "]", "-", ".", "x", "\r", "9", ":"]
        let near: [UInt8] = [0x2E, 0x2E, 0x2E, 0x2C, 0x2F, 0x3A, 0x20, 0x30, 0x39, 0x1E, 0xAE]
        for _ in 0..<50_000 {
            var text = (0..<10).map { _ in UInt8(0x30 + mix.below(10)) }
            if mix.below(4) == 0 { text[0] = 0x39 }
            // Near Int64's nanoseconds: 9223371000 to 9223372999.
            if mix.below(8) == 0 { text[0..<7] = ArraySlice(Array((mix.below(2) == 0 ? "9223371" : "9223372").utf8)) }
            if mix.below(8) == 0 { text[mix.below(10)] = near[mix.below(near.count)] }
            text.append(near[mix.below(near.count)])
            text += (0..<mix.below(12)).map { _ in UInt8(0x30 + mix.below(10)) }
            text += Array(tails[mix.below(tails.count)].utf8)
            let prefix = mix.below(3)
            text = Array(repeating: 0x20, count: prefix) + text
            expectParsedAsByDigit(text, from: prefix)
        }
    }

    @Test func rememberedFirstDigitsReadAsTheDigitByDigitParser() {
        // One LeadingDigits through a run of lines, as the reader keeps it:
        // most lines share their first eight bytes with the line before,
        // some change them, some break them (a near miss kept for the
        // lines after, so that a broken word meets the remembered one).
        var mix = SplitMix64(seed: 11)
        let near: [UInt8] = [0x2E, 0x2C, 0x2F, 0x3A, 0x20, 0x1E, 0xAE, 0x00]
        let tails = ["", " host03 GET", "\t", "Z", "]", "-", "x", "9"]
        var leading = LeadingDigits()
        var first = Array("00000000".utf8)
        for _ in 0..<50_000 {
            switch mix.below(8) {
            case 0: first = (0..<8).map { _ in UInt8(0x30 + mix.below(10)) }
            case 1: first[mix.below(8)] = near[mix.below(near.count)]
            case 2: first = Array((mix.below(2) == 0 ? "92233719" : "92233720").utf8)
            default: break
            }
            var text = first + (0..<2).map { _ in UInt8(0x30 + mix.below(10)) }
            text.append(mix.below(10) == 0 ? near[mix.below(near.count)] : 0x2E)
            text += (0..<mix.below(12)).map { _ in UInt8(0x30 + mix.below(10)) }
            text += Array(tails[mix.below(tails.count)].utf8)
            text.withUnsafeBytes { raw in
                let slow = parseUnixSecondsByDigit(raw, from: 0, plausibleOnly: false)
                // Nil leaves the line to the general path, which the test
                // above holds to the same parser.
                if let remembered = parseTenDigitSeconds(raw.baseAddress!, from: 0, end: raw.count, leading: &leading) {
                    #expect(remembered == slow, "\(String(decoding: text, as: UTF8.self)) \(text)")
                }
            }
        }
        // The first use, before any word is kept: eight zeros are 0.
        var fresh = LeadingDigits()
        Array("0000000012.000001 x".utf8).withUnsafeBytes { raw in
            #expect(parseTenDigitSeconds(raw.baseAddress!, from: 0, end: raw.count, leading: &fresh)
                    == .time(Instant(nanoseconds: 12_000_001_000), length: 17))
        }
    }

    @Test func theBenchmarksShapeTakesTheTenDigitPath() {
        for (text, ns, length) in [("1795953600.000569 host03", Int64(1_795_953_600_000_569_000), 17),
                                   ("1795953600.000569\thost03", Int64(1_795_953_600_000_569_000), 17),
                                   ("9223371999.999999 x", Int64(9_223_371_999_999_999_000), 17),
                                   ("9223371999.999999999 x", Int64(9_223_371_999_999_999_999), 20),
                                   ("0000000000.1234567 host", Int64(123_456_700), 18),
                                   ("1795953600.12345 host", Int64(1_795_953_600_123_450_000), 16),
                                   ("1795953600.0005 host", Int64(1_795_953_600_000_500_000), 15),
                                   ("1795953600. GET /index", Int64(1_795_953_600_000_000_000), 11)] {
            Array(text.utf8).withUnsafeBytes { raw in
                #expect(parseTenDigitSeconds(raw.baseAddress!, from: 0, end: raw.count)
                    == .time(Instant(nanoseconds: ns), length: length), "\(text)")
            }
        }
        // Left to the general path: past Int64's nanoseconds, eleven digits,
        // no dot, and a buffer that ends before two words.
        for text in ["9223372000.000000 host", "9223372036.0 host", "17959536001.5 host", "1795953600 host03 GET",
                     "1795953600.000569"] {
            Array(text.utf8).withUnsafeBytes { raw in
                #expect(parseTenDigitSeconds(raw.baseAddress!, from: 0, end: raw.count) == nil, "\(text)")
            }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
