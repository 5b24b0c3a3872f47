// A UTF-8 byte-order mark at the very start of the input (SPEC, Time): fields
// and timestamps do not see it, output keeps it, and a `record` prefix takes
// it along when it is removed.

import Testing

private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

@Suite("Byte-order mark, end to end")
struct ByteOrderMarkTests {
    @Test("replay: line 1's timestamp is read past the mark, and the line is written out with it")
    func timestamp() throws {
        let input = bom + bytes("1795953600 a\n1795953600.5 b\n1795953602 c\n")
        let result = try Pace.run(["--throttle", "1s", "--replay"], stdin: input)
        #expect(result == PaceResult(stdout: bom + bytes("1795953600 a\n1795953602 c\n"), stderr: "", status: 0))
    }

    @Test("replay: line 1's key fields do not see the mark (and --stats counts its emission under that key)")
    func replayKey() throws {
        let input = bom + bytes("k 0ms a\nk 0ms b\n")
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-field", "2", "--key-field", "1", "--stats"],
                                  stdin: input)
        #expect(result.stdout == bom + bytes("k 0ms a\n"))
        #expect(result.status == 0)
        #expect(result.stderr.hasSuffix("""
            pace: stats by key (top 1 of 1 by events in):
              key  in  emitted  dropped
              k     2        1        1

            """))
    }

    @Test("replay, record: the mark goes with the prefix")
    func record() throws {
        let input = bom + bytes("1795953600.000000\ta\n1795953600.500000\tb\n1795953601.000000\tc\n")
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "record"], stdin: input)
        #expect(result == PaceResult(stdout: bytes("a\nc\n"), stderr: "", status: 0))
    }

    @Test("replay, record: the mark goes with the prefix for --dropped and keys too")
    func recordDroppedAndKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let input = bom + bytes("1795953600.000000\tk a\n1795953600.100000\tk b\n1795953600.200000\tj c\n")
        let result = try Pace.spawn([bytes("--debounce"), bytes("1s"), bytes("--replay"), bytes("--time-format"),
                                     bytes("record"), bytes("--key-field"), bytes("1"), bytes("--dropped"),
                                     scratch.file(bytes("d"))], stdin: input)
        // Line 1 is key k (the mark went with the prefix), replaced by line 2.
        #expect(result == RawResult(stdout: bytes("k b\nj c\n"), stderr: [], status: 0))
        #expect(scratch.read(bytes("d")) == bytes("k a\n"))
    }

    // A live run's line 1 is recorded as read, mark and all, after its
    // prefix: the record's line is the line as live mode read it, whose
    // fields did not see the mark, so the replay keys it as live did.
    @Test("record, then replay: line 1's mark after the prefix is not part of its key, as live")
    func recordedMark() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let input = bom + bytes("k a\nk b\n")
        let flags = [bytes("--throttle"), bytes("1h"), bytes("--key-field"), bytes("1"), bytes("--stats")]
        let live = try Pace.spawn(flags + [bytes("--record"), scratch.file(bytes("r"))], stdin: input)
        let table = bytes("""
            pace: stats by key (top 1 of 1 by events in):
              key  in  emitted  dropped
              k     2        1        1

            """)
        #expect(live.stdout == bom + bytes("k a\n") && live.status == 0)
        #expect(live.stderr.ends(with: table), "\(live)")
        let replay = try Pace.spawn(flags + [bytes("--replay"), bytes("--time-format"), bytes("record"),
                                             scratch.file(bytes("r"))])
        #expect(replay.stdout == bom + bytes("k a\n") && replay.status == 0)
        #expect(replay.stderr.ends(with: table), "\(replay)")
    }

    @Test("live: line 1's key fields do not see the mark")
    func liveKey() throws {
        let result = try Pace.run(["--throttle", "1h", "--key-field", "1"], stdin: bom + bytes("a\na\nb\n"))
        #expect(result == PaceResult(stdout: bom + bytes("a\nb\n"), stderr: "", status: 0))
    }

    @Test("a mark anywhere but at the very start of the input is data")
    func elsewhere() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay"], stdin: bytes("0ms a\n") + bom + bytes("1ms b\n"))
        #expect(result.stdout == bytes("0ms a\n"))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("pace: line 2: "))
    }
}
