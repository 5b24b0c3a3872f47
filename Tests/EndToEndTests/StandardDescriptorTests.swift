// pace started with stdin, stdout or stderr closed (issue 15): the file it
// opens next must not become that descriptor, and using a closed one is an
// error as it is for `seq 3 >&-`.

import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Whether `record` is exactly `--record` lines for `lines`: each
/// `<seconds>.<6 digits>TAB<line>`.
private func isRecord(_ record: [UInt8], of lines: [String]) -> Bool {
    let rows = record.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard rows.count == lines.count + 1, rows.last!.isEmpty else { return false }
    for (row, line) in zip(rows, lines) {
        guard let tab = row.firstIndex(of: UInt8(ascii: "\t")) else { return false }
        let stamp = String(decoding: row[..<tab], as: UTF8.self).split(separator: ".")
        guard stamp.count == 2, stamp[0].allSatisfy(\.isNumber), stamp[1].count == 6, stamp[1].allSatisfy(\.isNumber),
              Array(row[(tab + 1)...]) == bytes(line) else { return false }
    }
    return true
}

@Suite("Closed standard descriptors, end to end")
struct StandardDescriptorTests {
    @Test("stdout closed: the record file does not take fd 1; writing stdout is EBADF, exit 1")
    func stdoutClosed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let record = scratch.file(bytes("r.rec"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1ms"), bytes("--record"), record],
                                    stdin: bytes("a\nb\n"), closed: [1])
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: stdout: Bad file descriptor\n"), status: 1))
        // a is recorded, then writing it to stdout fails and pace stops: b
        // is never handled. The record holds a's record line, never a as
        // output.
        let recorded = scratch.read(bytes("r.rec")) ?? []
        #expect(isRecord(recorded, of: ["a"]), "\(String(decoding: recorded, as: UTF8.self))")
    }

    @Test("stdout closed without --record: the same error")
    func stdoutClosedPlain() throws {
        let replay = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--replay")],
                                    stdin: bytes("0ms a\n"), closed: [1])
        #expect(replay == RawResult(stdout: [], stderr: bytes("pace: stdout: Bad file descriptor\n"), status: 1))
    }

    @Test("stderr closed: --trace and --stats do not land in the record file")
    func stderrClosed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let record = scratch.file(bytes("r.rec"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1ms"), bytes("--record"), record,
                                     bytes("--stats"), bytes("--trace")],
                                    stdin: bytes("a\nb\n"), closed: [2])
        // One read: a and b arrive at the same instant, so b is dropped.
        #expect(result == RawResult(stdout: bytes("a\n"), stderr: [], status: 0))
        let recorded = scratch.read(bytes("r.rec")) ?? []
        #expect(isRecord(recorded, of: ["a", "b"]), "\(String(decoding: recorded, as: UTF8.self))")
    }

    @Test("stdin closed: the record file does not become the input; reading stdin is EBADF, exit 1")
    func stdinClosed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let record = scratch.file(bytes("r.rec"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1ms"), bytes("--record"), record], closed: [0])
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: stdin: Bad file descriptor\n"), status: 1))
        #expect(scratch.read(bytes("r.rec")) == [])
    }
}
