// The line reader over a real file descriptor, with buffers small enough to
// force partial lines, compaction and growth.

import Glibc
import Testing
@testable import PaceCore
import PaceTesting

/// A descriptor open on `bytes` (an in-memory file).
private func descriptor(for bytes: [UInt8]) throws -> Int32 { memoryFile(bytes) }

private func lines(of bytes: [UInt8], capacity: Int) throws -> [[UInt8]] {
    let fd = try descriptor(for: bytes)
    defer { close(fd) }
    var reader = LineReader(fd: fd, capacity: capacity)
    var result: [[UInt8]] = []
    while let line = nextLine(&reader) { result.append(line) }
    return result
}

/// The next line, reading as replay does: the buffered lines, then fill().
/// Nil at end of input (or on a read error, which is recorded).
private func nextLine(_ reader: inout LineReader) -> [UInt8]? {
    while true {
        if let line = reader.nextBuffered() { return Array(line) }
        switch reader.fill() {
        case .data: continue
        case .endOfInput: return reader.nextBuffered().map { Array($0) }
        case .interrupted, .wouldBlock, .failed: Issue.record("read failed"); return nil
        }
    }
}

/// The lines already buffered, without reading.
private func rest(_ reader: inout LineReader) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    while let line = reader.nextBuffered() { lines.append(Array(line)) }
    return lines
}

@Suite("Line reader")
struct LineReaderTests {
    @Test("splits on \\n only, keeps \\r and any byte, and keeps a last line without \\n",
          arguments: [16, 17, 64, 4096])
    func splits(capacity: Int) throws {
        let input: [UInt8] = Array("a\r\n\nbb\u{0}\n".utf8) + [0xFF, 0xC3, 0x0A] + Array("last".utf8)
        let expected: [[UInt8]] = [Array("a\r".utf8), [], Array("bb\u{0}".utf8), [0xFF, 0xC3], Array("last".utf8)]
        #expect(try lines(of: input, capacity: capacity) == expected)
    }

    @Test("a line longer than the buffer grows it; lines around it are intact")
    func longLine() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        let input = Array("head\n".utf8) + long + [0x0A] + Array("tail\n".utf8)
        #expect(try lines(of: input, capacity: 16) == [Array("head".utf8), long, Array("tail".utf8)])
    }

    @Test("empty input has no line; a lone newline is one empty line")
    func edges() throws {
        #expect(try lines(of: [], capacity: 16) == [])
        #expect(try lines(of: [0x0A], capacity: 16) == [[UInt8]()])
        #expect(try lines(of: Array("x".utf8), capacity: 16) == [Array("x".utf8)])
    }

    @Test("many lines across many refills come out in order")
    func manyLines() throws {
        let expected: [[UInt8]] = (0..<5_000).map { Array("line \($0) \(String(repeating: "z", count: $0 % 37))".utf8) }
        let input: [UInt8] = expected.flatMap { $0 + [UInt8(0x0A)] }
        #expect(try lines(of: input, capacity: 64) == expected)
    }

    @Test("a buffer grown for a 100 MB line goes back to its first size once the line is read")
    func hugeLineBufferIsGivenBack() throws {
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 100 << 20)
        let after: [[UInt8]] = (0..<1_000).map { Array("line \($0)".utf8) }
        let fd = try descriptor(for: Array("head\n".utf8) + huge + [0x0A] + after.flatMap { $0 + [0x0A] })
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        #expect(reader.capacity == LineReader.defaultCapacity)
        #expect(nextLine(&reader) == Array("head".utf8))
        #expect(nextLine(&reader) == huge)
        #expect(reader.capacity >= huge.count)
        var rest: [[UInt8]] = []
        while let line = nextLine(&reader) { rest.append(line) }
        #expect(rest == after)
        #expect(reader.capacity == LineReader.defaultCapacity)
    }

    @Test("a buffer grown for a line of a few buffers stays grown")
    func longishLineKeepsItsBuffer() throws {
        // 16 bytes grow to 64 for a 40-byte line: within four times the first
        // size, so the buffer is kept for the next such line.
        let long = [UInt8](repeating: UInt8(ascii: "y"), count: 40)
        let fd = try descriptor(for: long + [0x0A] + Array("a\nb\n".utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd, capacity: 16)
        #expect(nextLine(&reader) == long)
        #expect(reader.capacity == 64)
        #expect(nextLine(&reader) == Array("a".utf8))
        #expect(nextLine(&reader) == Array("b".utf8))
        #expect(nextLine(&reader) == nil)
        #expect(reader.capacity == 64)
    }

    @Test("input ended early (a signal) leaves a regular file's unfinished line unread, its offset at the line's start")
    func endedFileGivesBackItsUnfinishedLine() throws {
        // 16 bytes read: two whole lines after the first, then "ijkl" of a
        // line the file goes on with.
        let fd = try descriptor(for: Array("ab\ncd\nefgh\nijklmnop\n".utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd, capacity: 16)
        #expect(nextLine(&reader) == Array("ab".utf8))
        let lineLeft = reader.endInput()
        #expect(lineLeft)
        #expect(rest(&reader) == ["cd", "efgh"].map { Array($0.utf8) })
        let fill = reader.fill()
        #expect(fill == .endOfInput)
        #expect(lseek(fd, 0, SEEK_CUR) == 11)
    }

    @Test("input ended early with only an unfinished line of a file buffered: no line left")
    func endedFileWithOnlyAFragment() throws {
        let fd = try descriptor(for: Array("ab\ncd\nefghijklmnopqrstuvwxyz\n".utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd, capacity: 16)
        #expect(nextLine(&reader) == Array("ab".utf8))
        #expect(rest(&reader) == [Array("cd".utf8)])
        let lineLeft = reader.endInput()
        #expect(!lineLeft)
        #expect(rest(&reader) == [])
        #expect(lseek(fd, 0, SEEK_CUR) == 6)
    }

    @Test("input ended early from a pipe: the unfinished line is the last line")
    func endedPipeKeepsItsUnfinishedLine() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let bytes = Array("ab\ncd\nef".utf8)
        #expect(write(ends[1], bytes, bytes.count) == bytes.count)
        close(ends[1])
        var reader = LineReader(fd: ends[0], capacity: 64)
        let fill = reader.fill()
        #expect(fill == .data)
        #expect(rest(&reader) == ["ab", "cd"].map { Array($0.utf8) })
        let lineLeft = reader.endInput()
        #expect(lineLeft)
        #expect(rest(&reader) == [Array("ef".utf8)])
    }

    @Test("input given up before its end leaves a regular file's offset just past the last line taken")
    func givenUpFileGoesBack() throws {
        let fd = try descriptor(for: Array("ab\ncd\nef\ngh".utf8))
        defer { close(fd) }
        var reader = LineReader(fd: fd, capacity: 16)
        #expect(nextLine(&reader) == Array("ab".utf8))
        reader.leaveUnread()
        #expect(lseek(fd, 0, SEEK_CUR) == 3)
        #expect(rest(&reader) == [])
    }
}
