// FileSink with an output thread (replay into a pipe): the lines reach the
// pipe as the direct writes put them there, in order, across buffers handed
// over and lines longer than a buffer (written directly, after what the
// thread holds); a reader gone is `.brokenPipe`, as a direct write says.
// A second signal while the thread is stalled is the end-to-end tests'
// (SignalAndDescriptorTests), with the binary and real signals.

@testable import PaceCore
import Glibc
import Testing

/// A pipe whose write end holds 1 MiB, so a test can write less than that
/// and read it all afterwards.
private func bigPipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    try #require(setPipeCapacity(fds[1], 1 << 20) == 1 << 20)
    return (fds[0], fds[1])
}

/// Everything left in the pipe `fd` (its write end closed).
private func readAll(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return bytes }
        bytes += chunk[..<n]
    }
}

private func write(_ sink: inout FileSink, _ line: [UInt8]) throws(OutputError) {
    var failure: OutputError?
    line.withUnsafeBytes { bytes in
        do throws(OutputError) { try sink.write(bytes, at: 0) } catch { failure = error }
    }
    if let failure { throw failure }
}

@Suite("FileSink with an output thread")
struct OutputThreadTests {
    @Test("lines of every length through a 64-byte buffer arrive whole and in order, long ones too",
          arguments: [false, true])
    func everyLineInOrder(threaded: Bool) throws {
        let pipe = try bigPipe()
        defer { close(pipe.read) }
        var expected: [UInt8] = []
        do {
            var sink = FileSink(fd: pipe.write, target: "test", emitTime: false, flushEachLine: false,
                                capacity: 64, threaded: threaded)
            // 0 to 200 bytes: lines that fit, lines that fill a buffer, and
            // lines longer than one, written straight out.
            for i in 0..<2_000 {
                let line = [UInt8](repeating: UInt8(ascii: "a") + UInt8(i % 26), count: i * 7 % 201)
                try write(&sink, line)
                expected += line + [0x0A]
            }
            try sink.flush()
        }
        close(pipe.write)
        let got = readAll(pipe.read)
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    @Test("flush waits until what the thread was given is in the pipe")
    func flushWaits() throws {
        let pipe = try bigPipe()
        defer { close(pipe.read); close(pipe.write) }
        var sink = FileSink(fd: pipe.write, target: "test", emitTime: false, flushEachLine: false,
                            capacity: 64, threaded: true)
        var expected: [UInt8] = []
        for i in 0..<100 {
            let line = Array("line \(i)".utf8)
            try write(&sink, line)
            expected += line + [0x0A]
        }
        try sink.flush()
        var waiting: Int32 = 0
        #expect(ioctl(pipe.read, UInt(FIONREAD), &waiting) == 0)
        #expect(Int(waiting) == expected.count)
    }

    @Test("a reader gone is a broken pipe, at a later hand-over or at the flush")
    func readerGone() throws {
        let pipe = try bigPipe()
        close(pipe.read)
        defer { close(pipe.write) }
        var sink = FileSink(fd: pipe.write, target: "test", emitTime: false, flushEachLine: false,
                            capacity: 64, threaded: true)
        var failure: OutputError?
        do throws(OutputError) {
            for i in 0..<1_000 { try write(&sink, Array("line \(i)".utf8)) }
            try sink.flush()
        } catch {
            failure = error
        }
        #expect(failure == .brokenPipe)
    }

    @Test("a descriptor that is no pipe fails as a direct write does", arguments: [false, true])
    func writeFails(threaded: Bool) throws {
        // Open for reading only: every write fails with EBADF.
        let fd = open("/dev/null", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var sink = FileSink(fd: fd, target: "test", emitTime: false, flushEachLine: false,
                            capacity: 64, threaded: threaded)
        var failure: OutputError?
        do throws(OutputError) {
            try write(&sink, Array("a line".utf8))
            try sink.flush()
        } catch {
            failure = error
        }
        #expect(failure == .failed(target: "test", errno: EBADF))
    }
}
