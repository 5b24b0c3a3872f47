// A scratch directory for the tests whose outputs are FIFOs nobody reads (a
// stalled `--dropped` or `--record`, stderr): the FIFOs' read ends, held by
// the test, an input file whose offset the test shares with pace, and what
// pace's commands leave there.

import Foundation
import Glibc
import Testing

/// A scratch directory, removed with the value.
final class FifoScratch {
    let path: String
    private var descriptors: [Int32] = []

    init(_ name: String) {
        path = NSTemporaryDirectory() + "\(name)-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(path, 0o700) == 0)
    }

    /// Writes `text` to the file `in` there and opens it for pace's stdin
    /// (its offset shared with the test; closed with the value).
    func input(_ text: String) -> Int32 {
        #expect(FileManager.default.createFile(atPath: path + "/in", contents: Data(text.utf8)))
        let fd = open(path + "/in", O_RDONLY | O_CLOEXEC)
        descriptors.append(fd)
        return fd
    }

    /// Makes the FIFO `name` there and opens its read end (non-blocking,
    /// closed with the value), so pace's open of it does not wait.
    func fifoReader(_ name: String) -> Int32 {
        #expect(mkfifo(path + "/" + name, 0o600) == 0)
        let fd = open(path + "/" + name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        descriptors.append(fd)
        return fd
    }

    /// The pid a command wrote to `name` (written whole: moved into place).
    func pid(_ name: String) -> pid_t? {
        (try? String(contentsOfFile: path + "/" + name, encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func exists(_ name: String) -> Bool { access(path + "/" + name, F_OK) == 0 }

    deinit {
        for fd in descriptors { close(fd) }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Everything `fd` gives until every writer has closed it (10 s at most).
func readToEnd(_ fd: Int32) -> [UInt8] {
    var all: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, 100)
        let n = read(fd, &chunk, chunk.count)
        if n == 0 { break }
        if n > 0 { all += chunk[..<n] }
    }
    return all
}

/// Fills the FIFO at `path`, which a reader holds open, with `X`s through a
/// writer of its own; how many bytes went in.
func fill(_ path: String) -> Int {
    let filler = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
    defer { close(filler) }
    let block = [UInt8](repeating: 0x58, count: 4096)
    var filled = 0
    while true {
        let n = write(filler, block, block.count)
        if n <= 0 { return filled }
        filled += n
    }
}

/// The `\n`s in what a FIFO's reader end holds (up to 1 MiB, more than a
/// FIFO takes), read at once.
func wholeLines(waitingIn reader: Int32) -> Int {
    var fifo = [UInt8](repeating: 0, count: 1 << 20)
    let got = read(reader, &fifo, fifo.count)
    return got > 0 ? fifo[..<got].count { $0 == 0x0A } : 0
}
