// FileSink writes a `--emit-time` or `--count` prefix straight into its
// buffer, without a bounds check per byte: so before a prefix it flushes
// whenever the longest prefix might not fit (the longest time and TAB, and
// with `--count` the longest count and TAB too). These tests fill a small
// buffer to every level around that point, emit a line with the longest
// prefix, and check which bytes reached the descriptor by then and in the
// end. A sink that wrote a prefix past its buffer would hand it to the
// descriptor with the bytes before it, in a write longer than the buffer
// (or corrupt the heap), where the expected flush hands over those bytes
// alone.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

/// Everything written to `fd` (a memory file) so far.
private func written(_ fd: Int32) -> [UInt8] {
    var info = stat()
    precondition(fstat(fd, &info) == 0)
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    precondition(n == bytes.count)
    return bytes
}

/// A time of `nanoseconds` (>= 0) as the prefix shows it: seconds with 6
/// decimals, truncated.
private func seconds(_ nanoseconds: Int64) -> String {
    let micros = String(nanoseconds % 1_000_000_000 / 1_000)
    return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 6 - micros.count) + micros
}

private func emit(_ sink: inout FileSink, _ line: [UInt8], at time: Instant, count: Int64?) throws {
    try line.withUnsafeBytes { bytes in
        // The one emit: a count of 0 is a run that does not count.
        try sink.emit(Emission(line: bytes, time: time, number: 1, count: count ?? 0))
    }
}

@Suite("FileSink: the flush before a prefix")
struct FileSinkFlushTests {
    static let capacity = 256
    /// The longest prefixes: a time of -9223372036.854776 s and a count of
    /// 9223372036854775807.
    static let longestTime = Instant(nanoseconds: Int64.min)
    static let longestCount = Int64.max

    @Test("with every fill level around the flush point, the bytes before the prefix go out alone, and all arrive",
          arguments: [(true, false), (false, true), (true, true)] as [(emitTime: Bool, counted: Bool)], [1, 30])
    func prefixNearAFullBuffer(prefixes: (emitTime: Bool, counted: Bool), lineLength: Int) throws {
        let (emitTime, counted) = prefixes
        // The room the sink keeps for a prefix: the longest time (20 bytes
        // allowed for it) and a TAB, with --count also the longest count (19
        // digits) and a TAB.
        let room = counted ? 20 + 1 + 19 + 1 : 20 + 1
        let timePrefix = Array("-9223372036.854776\t".utf8)
        let countPrefix = Array("9223372036854775807\t".utf8)
        let prefix = (emitTime ? timePrefix : []) + (counted ? countPrefix : [])
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: lineLength)
        for free in 0...(room + 12) {
            let fd = memoryFile([])
            defer { close(fd) }
            var sink = FileSink(fd: fd, target: "test", emitTime: emitTime, flushEachLine: false,
                                capacity: Self.capacity)
            // One line fills the buffer up to `free` bytes short of full; with
            // --emit-time it has its own prefix, `0.000000` and a TAB.
            let fillerPrefix = emitTime ? Array("0.000000\t".utf8) : []
            let fillerLine = [UInt8](repeating: UInt8(ascii: "f"),
                                     count: Self.capacity - free - fillerPrefix.count - 1)
            try emit(&sink, fillerLine, at: 0, count: nil)
            let filler = fillerPrefix + fillerLine + [0x0A]
            #expect(written(fd) == [], "free \(free): nothing is written while the buffer has room")

            try emit(&sink, line, at: Self.longestTime, count: counted ? Self.longestCount : nil)
            // Too little room for the longest prefix: the filler goes out
            // first. Otherwise the prefix is buffered, and the line after
            // it, or, if the line does not fit behind it, the buffer goes out
            // with the prefix and the line starts the next one.
            let expected: [UInt8]
            if free < room {
                expected = filler
            } else if free - prefix.count >= line.count + 1 {
                expected = []
            } else {
                expected = filler + prefix
            }
            #expect(written(fd) == expected, "free \(free): what reached the descriptor after the prefixed line")

            try sink.flush()
            #expect(written(fd) == filler + prefix + line + [0x0A], "free \(free): every byte, in order")
        }
    }

    @Test("a run of prefixed lines through a small buffer comes out whole", arguments: [false, true])
    func manyPrefixedLines(counted: Bool) throws {
        let fd = memoryFile([])
        defer { close(fd) }
        var sink = FileSink(fd: fd, target: "test", emitTime: true, flushEachLine: false, capacity: 64)
        var expected: [UInt8] = []
        // Lines of 0 to 40 bytes at ever longer times and counts, so that the
        // prefixes' lengths and the fill level both move.
        var time: Int64 = 0
        for i in 0..<500 {
            time = time &* 7 &+ Int64(i) &+ 1
            if time < 0 { time = Int64(i) }
            let line = [UInt8](repeating: UInt8(ascii: "a") + UInt8(i % 26), count: i % 41)
            // A count is at least 1 (the line itself); 0 means not counted.
            let count = Int64(i) * 1_000_003 + 1
            try emit(&sink, line, at: Instant(nanoseconds: time), count: counted ? count : nil)
            expected += Array(seconds(time).utf8) + [0x09]
            if counted { expected += Array(String(count).utf8) + [0x09] }
            expected += line + [0x0A]
        }
        try sink.flush()
        #expect(written(fd) == expected)
    }
}
