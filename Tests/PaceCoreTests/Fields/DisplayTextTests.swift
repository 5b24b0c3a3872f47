// How key and line bytes are shown to a person (SPEC, Fields; issue 21):
// every byte value alone, then valid and invalid UTF-8 sequences. Each
// expected text is written out by hand (the hex of the `\xHH` escapes comes
// from the test's own table, not from the code under test).

import Testing
@testable import PaceCore

extension Fields {
    @Suite struct DisplayTextTests {
        private static let hex = Array("0123456789abcdef")

        /// `\x` and two lower-case hex digits, as the test reckons them.
        private static func hexEscape(_ b: UInt8) -> String {
            "\\x" + String(hex[Int(b) / 16]) + String(hex[Int(b) % 16])
        }

        @Test("each byte of 0x00 to 0x7f alone: C0 controls and DEL escaped, \\t \\n \\r \\\\ short, the rest as is")
        func asciiBytes() {
            for b in UInt8(0)...0x7F {
                let expected: String
                switch b {
                case 0x09: expected = "\\t"
                case 0x0A: expected = "\\n"
                case 0x0D: expected = "\\r"
                case 0x5C: expected = "\\\\"
                case 0x00...0x1F, 0x7F: expected = Self.hexEscape(b)
                default: expected = String(Character(Unicode.Scalar(b)))
                }
                #expect(displayText([b]) == expected, "byte \(b)")
            }
            #expect(displayText([0x1B]) == "\\x1b")
            #expect(displayText([0x00]) == "\\x00")
            #expect(displayText([0x7F]) == "\\x7f")
        }

        @Test("each byte of 0x80 to 0xff alone is no UTF-8: \\xHH, lower case")
        func highBytes() {
            for b in UInt8(0x80)...0xFF {
                #expect(displayText([b]) == Self.hexEscape(b), "byte \(b)")
            }
            #expect(displayText([0xFF]) == "\\xff")
            #expect(displayText([0xFE]) == "\\xfe")
        }

        @Test("valid multi-byte UTF-8 stays as it is, at each length and at the edges of the ranges")
        func validUTF8() {
            let valid: [[UInt8]] = [
                [0xC2, 0x80], [0xC3, 0xA9], [0xDF, 0xBF],                     // U+0080, é, U+07FF
                [0xE0, 0xA0, 0x80], [0xE2, 0x82, 0xAC], [0xED, 0x9F, 0xBF],   // U+0800, €, U+D7FF
                [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],                       // U+E000, U+FFFF
                [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98, 0x80],           // U+10000, 😀
                [0xF4, 0x8F, 0xBF, 0xBF],                                     // U+10FFFF
            ]
            for sequence in valid {
                #expect(displayText(sequence) == String(decoding: sequence, as: UTF8.self), "\(sequence)")
            }
            #expect(displayText(Array("Grüße, ünïcödé €".utf8)) == "Grüße, ünïcödé €")
        }

        @Test("invalid UTF-8: every byte that is not part of a valid sequence is escaped alone")
        func invalidUTF8() {
            let cases: [([UInt8], String)] = [
                ([0xC0, 0x80], "\\xc0\\x80"),                 // overlong NUL
                ([0xC1, 0xBF], "\\xc1\\xbf"),                 // overlong
                ([0xE0, 0x80, 0x80], "\\xe0\\x80\\x80"),      // overlong, 3 bytes
                ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),      // a surrogate (U+D800)
                ([0xF0, 0x80, 0x80, 0x80], "\\xf0\\x80\\x80\\x80"),  // overlong, 4 bytes
                ([0xF4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80"),  // above U+10FFFF
                ([0xF5, 0x80, 0x80, 0x80], "\\xf5\\x80\\x80\\x80"),
                ([0xE2, 0x82], "\\xe2\\x82"),                 // cut short at the end
                ([0xE2, 0x82, 0x41], "\\xe2\\x82A"),          // cut short by ASCII
                ([0xC3, 0xC3, 0xA9], "\\xc3é"),               // a lead, then a whole é
                ([0x80, 0x41], "\\x80A"),                     // a lone continuation
                ([0x61, 0xFF, 0x62], "a\\xffb"),
            ]
            for (bytes, expected) in cases {
                #expect(displayText(bytes) == expected, "\(bytes)")
            }
        }

        @Test("a terminal escape sequence, a CR, and distinct keys that U+FFFD made look alike")
        func keysFromLogs() {
            #expect(displayText(Array("\u{1B}[2Jhost\r".utf8)) == "\\x1b[2Jhost\\r")
            #expect(displayText([0xFF]) != displayText([0xFE]))
            // A backslash is escaped, so text that looks like an escape
            // stays apart from the byte it names.
            #expect(displayText(Array("\\xff".utf8)) == "\\\\xff")
            #expect(displayText(Array("\\xff".utf8)) != displayText([0xFF]))
            #expect(displayText([]) == "")
        }
    }
}
