// File names are bytes (issue 15): a name that is not UTF-8 is opened and
// created as given, and quoted in messages as given, never through a String
// that replaces its bytes with U+FFFD.

import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("File names as bytes, end to end")
struct FileNameTests {
    @Test("an input FILE named \\xff.log is found and read")
    func inputName() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name: [UInt8] = [0xFF] + bytes(".log")
        try scratch.write(bytes("0ms a\n0ms b\n"), to: name)
        let result = try Pace.spawn([bytes("--replay"), bytes("--debounce"), bytes("1ms"), scratch.file(name)])
        #expect(result == RawResult(stdout: bytes("0ms b\n"), stderr: [], status: 0))
    }

    @Test("--record \\xfe.rec creates exactly that name, also as --record=")
    func recordName() throws {
        for form in ["--record", "--record="] {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let name: [UInt8] = [0xFE] + bytes(".rec")
            let record = form.hasSuffix("=") ? [bytes(form) + scratch.file(name)] : [bytes(form), scratch.file(name)]
            let result = try Pace.spawn([bytes("--throttle"), bytes("1h")] + record, stdin: bytes("a\nb\n"))
            #expect(result == RawResult(stdout: bytes("a\n"), stderr: [], status: 0))
            #expect(scratch.names() == [name])
            let recorded = scratch.read(name) ?? []
            #expect(recorded.filter { $0 == UInt8(ascii: "\n") }.count == 2)
        }
    }

    @Test("a missing FILE's name is quoted with its own bytes")
    func missingName() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file([0xFD] + bytes("-missing"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), path])
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: ") + path + bytes(": No such file or directory\n")
                                        + bytes(usageHintTail), status: 2))
    }

    @Test("--exempt VALUES that are not UTF-8 match those bytes, not U+FFFD's")
    func exemptBytes() throws {
        let lines = bytes("level=") + [0xFF] + bytes(" a\nlevel=") + [0xFF] + bytes(" b\nlevel=") + [0xEF, 0xBF, 0xBD]
            + bytes(" c\nlevel=") + [0xEF, 0xBF, 0xBD] + bytes(" d\n")
        for form in [[bytes("--exempt"), bytes("level=") + [0xFF]], [bytes("--exempt=level=") + [0xFF]]] {
            let result = try Pace.spawn([bytes("--throttle"), bytes("1h")] + form, stdin: lines)
            // a and b are exempt; c opens the window, d is dropped in it.
            #expect(result == RawResult(stdout: bytes("level=") + [0xFF] + bytes(" a\nlevel=") + [0xFF] + bytes(" b\nlevel=")
                                            + [0xEF, 0xBF, 0xBD] + bytes(" c\n"), stderr: [], status: 0))
        }
    }

    @Test("a --time-format pattern's literal byte that is not UTF-8 matches itself")
    func patternBytes() throws {
        let result = try Pace.spawn([bytes("--replay"), bytes("--throttle"), bytes("1s"), bytes("--time-format"),
                                     bytes("%s") + [0xFF] + bytes("z"), bytes("--emit-time")],
                                    stdin: bytes("1795953600") + [0xFF] + bytes("z a\n"))
        #expect(result == RawResult(stdout: bytes("1795953600.000000\t1795953600") + [0xFF] + bytes("z a\n"),
                                    stderr: [], status: 0))
    }

    @Test("two FILEs are quoted with their own bytes")
    func twoNames() throws {
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), [0xFF], [0x80, 0x41]])
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: more than one input file ('") + [0xFF]
                                        + bytes("' and '") + [0x80, 0x41] + bytes("'); pace reads one\n")
                                        + bytes(usageHintTail), status: 2))
    }
}
