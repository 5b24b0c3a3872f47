// `--exempt M=…` with `--key-field N`: when both are blank-separated fields
// and N < M, the matcher goes on from the key's end instead of walking the
// line again (Exemption.swift). These tests read the line as a run does
// (the key first, then the matcher given that key) and check the answer
// against SPEC's rule, written here apart from pace's field code: awk's
// split on runs of spaces and tabs, a `\r` ending the line in no field,
// values compared with ASCII case ignored.

import Testing
@testable import PaceCore
import PaceTesting

extension Fields {
    @Suite struct ExemptionMatcherTests {
        /// The matcher's answer for `line`, given the key as `--key-field`
        /// takes it, and its answer walking the line alone.
        private func answers(_ line: [UInt8], key keyField: Int, exempt field: Int,
                             values: String = "error,fatal") -> (afterKey: Bool, alone: Bool) {
            guard case let .success(exemption) = Exemption.parse("\(field)=\(values)") else {
                preconditionFailure("bad --exempt")
            }
            let selector = FieldSelector.field(keyField)
            let keys = KeyExtractor(selector, delimiter: nil)
            let matcher = ExemptionMatcher(exemption, delimiter: nil, key: selector)
            return line.withUnsafeBytes { raw in
                (matcher.exempts(raw, key: keys.key(of: raw)), matcher.exempts(raw))
            }
        }

        private func answers(_ line: String, key: Int, exempt: Int) -> (afterKey: Bool, alone: Bool) {
            answers(Array(line.utf8), key: key, exempt: exempt)
        }

        @Test func theFieldPastTheKeyIsFound() {
            #expect(answers("t host1 GET /a ERROR x", key: 2, exempt: 5) == (true, true))
            #expect(answers("t host1 GET /a ERRORS x", key: 2, exempt: 5) == (false, false))
            #expect(answers("t\thost1  \t GET /a Fatal", key: 2, exempt: 5) == (true, true))
            #expect(answers("t host1 error", key: 2, exempt: 3) == (true, true))
            #expect(answers("t host1 error", key: 1, exempt: 3) == (true, true))
            #expect(answers("error t", key: 1, exempt: 2) == (false, false))
        }

        @Test func aLineTooShortForEitherFieldIsNotExempt() {
            #expect(answers("t host1 GET", key: 2, exempt: 5) == (false, false))
            #expect(answers("t", key: 2, exempt: 5) == (false, false))
            #expect(answers("", key: 2, exempt: 5) == (false, false))
            #expect(answers("   ", key: 1, exempt: 2) == (false, false))
        }

        @Test func aCarriageReturnEndingTheLineIsInNoField() {
            #expect(answers("t host1 error\r", key: 2, exempt: 3) == (true, true))
            #expect(answers("t host1\r", key: 2, exempt: 3) == (false, false))
            #expect(answers("t host1 \r", key: 2, exempt: 3) == (false, false))
        }

        /// Random lines of short words, blanks, tabs and an optional `\r`,
        /// every pair N < M up to 7: the answer is SPEC's, found apart.
        @Test func randomLinesAgreeWithASplitWrittenApart() {
            var random = SplitMix64(seed: 25)
            let words: [[UInt8]] = ["error", "ERROR", "Fatal", "err", "errors", "x", "h1", "é"].map { Array($0.utf8) }
            for _ in 0..<3000 {
                var line: [UInt8] = []
                for _ in 0..<Int(random.next() % 9) {
                    for _ in 0..<Int(random.next() % 3) { line.append(random.next() % 2 == 0 ? 0x20 : 0x09) }
                    line += words[Int(random.next() % UInt64(words.count))]
                    line.append(random.next() % 3 == 0 ? 0x09 : 0x20)
                }
                if random.next() % 4 == 0 { line.append(0x0D) }
                let fields = split(line)
                for n in 1...6 {
                    for m in (n + 1)...7 {
                        let expected = m <= fields.count && ["error", "fatal"].contains(lowered(fields[m - 1]))
                        let got = answers(line, key: n, exempt: m)
                        #expect(got.afterKey == expected, "\(line) key \(n) exempt \(m)")
                        #expect(got.alone == expected, "\(line) key \(n) exempt \(m)")
                    }
                }
            }
        }

        /// awk's fields: runs of anything but space and tab, a final `\r` dropped.
        private func split(_ line: [UInt8]) -> [[UInt8]] {
            var bytes = line
            if bytes.last == 0x0D { bytes.removeLast() }
            return bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map(Array.init)
        }

        private func lowered(_ word: [UInt8]) -> String {
            String(decoding: word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
    }
}
