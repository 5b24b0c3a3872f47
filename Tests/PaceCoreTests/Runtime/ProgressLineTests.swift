// The status line's draws, on a real pseudo-terminal, at instants the test
// gives: what reaches the terminal after each look, byte for byte.

import Glibc
import Testing
@testable import PaceCore

@Suite("--progress' status line: when it is drawn")
struct ProgressLineTests {
    /// A pty: the line writes to its slave, the test reads the master.
    private final class Terminal {
        let master: Int32, slave: Int32
        init() throws {
            // /dev/ptmx, unlocked, and its /dev/pts/N (Glibc's module has
            // no posix_openpt): TIOCSPTLCK and TIOCGPTN.
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            try #require(master >= 0)
            var unlock: Int32 = 0, number: UInt32 = 0
            try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
            slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
            try #require(slave >= 0)
            // Output as written: no newline translation.
            var modes = termios()
            tcgetattr(slave, &modes)
            cfmakeraw(&modes)
            tcsetattr(slave, TCSANOW, &modes)
            let flags = fcntl(master, F_GETFL)
            _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
        }
        deinit { close(slave); close(master) }
        /// What was written since the last call.
        func take() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &chunk, chunk.count)
                if n <= 0 { break }
                bytes += chunk[..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private func figures(read: Int64, emitted: Int64) -> WatchFigures {
        var f = WatchFigures()
        f.linesRead = read
        f.emitted = emitted
        return f
    }

    private let ms: Int64 = 1_000_000

    @Test("erased by stdout's lines, the line comes back at most 10 times a second, and unchanged figures are not redrawn")
    func tenthsAfterErases() throws {
        let terminal = try Terminal()
        let line = try #require(ProgressLine(fd: terminal.slave, stdoutFD: terminal.slave, inputFD: -1,
                                             startedAt: Instant(nanoseconds: 0)))
        #expect(line.sharesStdout)
        let erase = "\r\u{1b}[K"
        // The first look draws (no lines per second from one sample), and
        // asks for no other.
        let first = line.look(figures(read: 1, emitted: 1), at: Instant(nanoseconds: 1000 * ms))
        #expect(terminal.take() == erase + "in 1, emitted 1, discarded 0, keys 0, 0 lines/s")
        #expect(first == nil)
        // The same figures 50 ms later: nothing written.
        _ = line.look(figures(read: 1, emitted: 1), at: Instant(nanoseconds: 1050 * ms))
        #expect(terminal.take() == "")
        // A stdout line erases it; 20 ms after the draw it is not drawn
        // again, but asked for at the next tenth.
        line.erase()
        #expect(terminal.take() == erase)
        let due = line.look(figures(read: 2, emitted: 2), at: Instant(nanoseconds: 1020 * ms))
        #expect(terminal.take() == "")
        #expect(due == Instant(nanoseconds: 1100 * ms))
        // At that tenth, the new figures.
        _ = line.look(figures(read: 2, emitted: 2), at: Instant(nanoseconds: 1100 * ms))
        #expect(terminal.take() == erase + "in 2, emitted 2, discarded 0, keys 0, 1 lines/s")
        // Erased again, and looked at a second later: drawn at once.
        line.erase()
        _ = terminal.take()
        _ = line.look(figures(read: 2, emitted: 2), at: Instant(nanoseconds: 2200 * ms))
        #expect(terminal.take() == erase + "in 2, emitted 2, discarded 0, keys 0, 0 lines/s")
    }
}
