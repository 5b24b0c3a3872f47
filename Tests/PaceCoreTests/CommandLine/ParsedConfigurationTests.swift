// The argument parser against SPEC's flag rules: the configuration a run gets
// from each policy flag, from the defaults and every option, and from
// arguments taken as the bytes they are.

import Testing
@testable import PaceCore
import PaceTesting

private func configuration(_ arguments: [String]) throws -> Configuration {
    switch parseArguments(arguments) {
    case let .success(.run(configuration)): return configuration
    case let .success(other): throw ParseFailure(description: "expected a run, got \(other)")
    case let .failure(error): throw ParseFailure(description: error.message)
    }
}

private struct ParseFailure: Error, CustomStringConvertible { var description: String }

extension ArgumentParserTests {
    @Test("the years at the edges of pace's range are taken", arguments: [1677, 2262])
    func edgeYears(year: Int) throws {
        #expect(try configuration(["--debounce", "1s", "--replay", "--year", String(year)]).year == year)
    }

    @Test("each policy flag and its window")
    func policies() throws {
        #expect(try configuration(["--debounce", "300ms"]).policy == .debounce(300_000_000, maxWait: nil))
        #expect(try configuration(["--leading", "1.5s"]).policy == .leading(1_500_000_000))
        #expect(try configuration(["--leading", "1.5s", "--trailing"]).policy == .leadingTrailing(1_500_000_000))
        #expect(try configuration(["--trailing", "--leading=2s"]).policy == .leadingTrailing(2_000_000_000))
        #expect(try configuration(["--throttle", ".5s"]).policy == .throttle(500_000_000))
        #expect(try configuration(["--throttle-first", "2m"]).policy == .throttle(120_000_000_000))
        #expect(try configuration(["--throttle-last", "250us"]).policy == .throttleLast(250_000))
        #expect(try configuration(["--throttle-last=1h"]).policy == .throttleLast(3_600_000_000_000))
    }

    @Test("defaults and every option")
    func options() throws {
        let defaults = try configuration(["--debounce", "1s"])
        #expect(defaults.replay == false && defaults.timeFormat == .auto && defaults.timeField == .number(1))
        #expect(defaults.delimiter == nil)
        #expect(defaults.onBadTime == .error && defaults.keyField == nil && defaults.inputPath == nil && defaults.year == nil)

        let all = try configuration(["--debounce", "1s", "--max-wait=5s", "--key-field", "3", "--replay",
                                     "--time-format", "unix-ms", "--year", "2024", "--time-field=2",
                                     "--on-bad-time", "pass", "--emit-time", "--stats", "--", "-file"])
        #expect(all.policy == .debounce(1_000_000_000, maxWait: 5_000_000_000))
        #expect(all.keyField == .field(3))
        #expect(all.replay && all.emitTime && all.stats)
        #expect(all.timeFormat == .unixMs)
        #expect(all.year == 2024)
        #expect(all.timeField == .number(2))
        #expect(all.onBadTime == .pass)
        #expect(all.inputPath == Array("-file".utf8))

        #expect(try configuration(["--throttle", "1s", "-"]).inputPath == nil)
        #expect(try configuration(["--throttle", "1s", "--record", "out.rec"]).recordPath == Array("out.rec".utf8))
        #expect(try configuration(["--debounce", "1s", "--max-wait", "1s"]).policy
                == .debounce(1_000_000_000, maxWait: 1_000_000_000))
    }

    @Test("FILE and --record keep the bytes they were given, UTF-8 or not")
    func pathBytes() throws {
        let arguments: [[UInt8]] = [Array("--throttle".utf8), Array("1s".utf8), Array("--record".utf8),
                                    [0xFE, 0x2E, 0x72], [0xFF, 0x2E, 0x6C]]
        guard case let .success(.run(parsed)) = parseArguments(bytes: arguments) else { Issue.record("no run"); return }
        #expect(parsed.recordPath == [0xFE, 0x2E, 0x72])
        #expect(parsed.inputPath == [0xFF, 0x2E, 0x6C])
        let inline: [[UInt8]] = [Array("--throttle".utf8), Array("1s".utf8), Array("--record=".utf8) + [0xC3, 0x3D]]
        guard case let .success(.run(parsed)) = parseArguments(bytes: inline) else { Issue.record("no run"); return }
        #expect(parsed.recordPath == [0xC3, 0x3D])
    }

    @Test("--delimiter takes any single byte, UTF-8 or not (issue 21): arguments are bytes")
    func delimiterBytes() throws {
        for byte: UInt8 in [0xFF, 0x80, 0xC3] {
            for form in [[Array("--delimiter".utf8), [byte]], [Array("--delimiter=".utf8) + [byte]]] {
                let arguments = [Array("--throttle".utf8), Array("1s".utf8)] + form
                guard case let .success(.run(parsed)) = parseArguments(bytes: arguments) else {
                    Issue.record("refused: \(form)")
                    continue
                }
                #expect(parsed.delimiter == byte)
            }
        }
        // Two bytes that are not UTF-8 are two bytes, quoted as given.
        let two = [Array("--throttle".utf8), Array("1s".utf8), Array("--delimiter".utf8), [0xFF, 0xFE]]
        guard case let .failure(error) = parseArguments(bytes: two) else { Issue.record("accepted"); return }
        #expect(error.messageBytes == Array("'--delimiter' takes one byte ('".utf8) + [0xFF, 0xFE] + Array("' is 2 bytes)".utf8))
    }

    @Test("a field NAME's byte that is not UTF-8 is named as it is, not as U+FFFD's first byte")
    func nameByte() throws {
        for flag in ["--key-field", "--time-field"] {
            let arguments = [Array("--throttle".utf8), Array("1s".utf8), Array("--replay".utf8), Array(flag.utf8), [0x61, 0xFF]]
            guard case let .failure(error) = parseArguments(bytes: arguments) else { Issue.record("accepted"); continue }
            #expect(error.message.hasSuffix("is not a NAME: byte 255 (a NAME holds letters, digits and '_ - @ .')"))
        }
    }
}
