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
            for plausibleOnly in [false, true] {
                text.withUnsafeBytes { raw in
                    let fast = parseUnixSeconds(raw, from: start, plausibleOnly: plausibleOnly)
                    let slow = parseUnixSecondsByDigit(raw, from: start, plausibleOnly: plausibleOnly)
                    #expect(fast == slow, "\(String(decoding: text, as: UTF8.self)) from \(start), plausibleOnly \(plausibleOnly)")
                }
            }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
