// Where pace leaves a regular file it reads when it stops before its end
// (a signal, a second one, stdout's reader gone): just past the last line it
// took, as POSIX asks of a utility that stops early (docs/CHOICES.md). The
// tests share pace's open file, as `{ pace ...; cat; } < file` would.

import Foundation
import Glibc
import Testing

/// 30,000 lines of 100 bytes in a file pace reads and the test shares (its
/// offset is pace's): reads of a power of two end inside a line.
private final class LinesFile {
    let bytes: [UInt8]
    let path = NSTemporaryDirectory() + "pace-offset-\(getpid())-\(UUID().uuidString)"
    let fd: Int32

    init() throws {
        bytes = Array((1...30_000).map { index -> String in
            let time = "\(index)us "
            return time + String(repeating: "x", count: 99 - time.utf8.count) + "\n"
        }.joined().utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        fd = open(path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

@Suite("The input's offset when pace stops early, end to end", .serialized)
struct InputOffsetTests {
    // A signal ends input where pace is: from a regular file, the lines
    // already read are taken, and the one the read buffer holds only the
    // start of is left in the file, with stdin's offset at its first byte
    // (POSIX: a utility that stops before the end of a seekable input leaves
    // the offset just past what it processed). The test shares pace's open
    // file, as `{ pace ...; cat; } < file` would: what pace wrote and what
    // is left to read from the offset make up the file exactly. Lines of 100
    // bytes never fill a read buffer of a power of two exactly.
    @Test("SIGTERM while replaying a regular file: no cut line, and stdin's offset just past the last line taken")
    func signalLeavesARegularFileAtALine() throws {
        let lines = try LinesFile()
        let (input, file) = (lines.bytes, lines.fd)
        let pace = try PipedPace(["--throttle", "1ns", "--replay"], .init(stdinFile: file))
        #expect(pace.waitUntilBlockedWriting(holding: 65_536) != nil)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.errors == "")
        #expect(end.status == 143)
        let offset = Int(lseek(file, 0, SEEK_CUR))
        #expect(offset > 0 && offset < input.count)
        #expect(offset % 100 == 0)
        let prefix = end.output == Array(input.prefix(offset))
        #expect(prefix)
    }

    // The same when the run is given up before input ends some other way: a
    // second signal while a write is blocked (the first one never reached
    // the end of the read buffer), or stdout's reader gone. The lines read
    // and not taken go back too: the offset is at a line's start.
    @Test("a second signal, or stdout's reader gone, leaves a regular file's offset at a line too",
          arguments: [true, false])
    func givenUpLeavesARegularFileAtALine(secondSignal: Bool) throws {
        let lines = try LinesFile()
        let (input, file) = (lines.bytes, lines.fd)
        let pace = try PipedPace(["--throttle", "1ns", "--replay"], .init(stdinFile: file))
        if secondSignal {
            #expect(pace.waitUntilBlockedWriting(holding: 65_536) != nil)
            #expect(pace.waitUntilAsleep())
            #expect(pace.send(SIGTERM))
            #expect(pace.send(SIGTERM))
        } else {
            pace.closeOutput()
        }
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == (secondSignal ? 143 : 0))
        let offset = Int(lseek(file, 0, SEEK_CUR))
        #expect(offset > 0 && offset < input.count)
        // 100-byte lines: reads of a power of two end inside one.
        #expect(offset % 100 == 0)
    }

    // Under --throttle-last every line goes out from a timer, fired when
    // the next line arrives and before its event reaches the policy: the
    // write that finds the reader gone is such a timer's, and the line that
    // fired it was read but never taken. It goes back with the rest.
    @Test("stdout's reader gone at a timer's write: the line that fired it is left in the file, not lost")
    func lineThatFiredTheFailedWriteGoesBack() throws {
        let lines = try LinesFile()
        let pace = try PipedPace(["--throttle-last", "10us", "--replay", "--stats"], .init(stdinFile: lines.fd))
        pace.closeOutput()
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 0)
        let offset = Int(lseek(lines.fd, 0, SEEK_CUR))
        let eventsIn = end.errors.split(separator: "\n").first { $0.hasPrefix("  events in:") }
            .flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(offset % 100 == 0)
        #expect(offset / 100 == eventsIn)
    }
}
