// Runs the built `pace` binary with what Foundation's Process cannot give it:
// arguments that are not UTF-8, and standard descriptors closed. posix_spawn
// with file actions: stdin, stdout and stderr are files in a fresh directory
// (so no pipe can fill up), except those asked to be closed.

import Foundation
import Testing

struct RawResult: Equatable, CustomStringConvertible {
    var stdout: [UInt8]
    var stderr: [UInt8]
    var status: Int32

    var description: String {
        "status \(status)\n--- stdout\n\(String(decoding: stdout, as: UTF8.self))--- stderr\n"
            + String(decoding: stderr, as: UTF8.self)
    }
}

/// A fresh directory for one test, whose path is given as bytes.
struct ScratchDirectory {
    let path: [UInt8]

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pace-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = Array(url.path.utf8)
    }

    /// The path of `name` (any bytes but `/` and NUL) in the directory.
    func file(_ name: [UInt8]) -> [UInt8] { path + [UInt8(ascii: "/")] + name }

    /// Creates `name` holding `contents`.
    func write(_ contents: [UInt8], to name: [UInt8]) throws {
        let fd = open(cString(file(name)), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
        defer { close(fd) }
        let written = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == contents.count else { throw POSIXError(.EIO) }
    }

    /// The contents of `name`, or nil if there is no such file.
    func read(_ name: [UInt8]) -> [UInt8]? {
        let fd = open(cString(file(name)), O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return bytes }
            bytes += chunk[..<n]
        }
    }

    /// The names of the directory's entries, as bytes.
    func names() -> Set<[UInt8]> {
        guard let dir = opendir(cString(path)) else { return [] }
        defer { closedir(dir) }
        var names: Set<[UInt8]> = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.insert(name) }
        }
        return names
    }

    func remove() {
        for name in names() { unlink(cString(file(name))) }
        rmdir(cString(path))
    }
}

func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

extension Pace {
    /// Runs pace with `arguments` (any bytes), feeding `stdin`; the
    /// descriptors in `closed` (0, 1 or 2) are closed in pace instead.
    /// `stdout` may name another file to open as fd 1 (`/dev/full`), as
    /// `> file` does, or as `>> file` with `appendingStdout`, and
    /// `stdinFile` one to open as fd 0 instead of `stdin`'s bytes.
    static func spawn(_ arguments: [[UInt8]], stdin: [UInt8] = [], closed: Set<Int32> = [],
                      stdout: [UInt8]? = nil, appendingStdout: Bool = false,
                      stdinFile: [UInt8]? = nil) throws -> RawResult {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(stdin, to: Array("stdin".utf8))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let files: [(Int32, [UInt8], Int32)] = [
            (0, stdinFile ?? scratch.file(Array("stdin".utf8)), O_RDONLY),
            (1, stdout ?? scratch.file(Array("stdout".utf8)), O_WRONLY | O_CREAT | (appendingStdout ? O_APPEND : O_TRUNC)),
            (2, scratch.file(Array("stderr".utf8)), O_WRONLY | O_CREAT | O_TRUNC),
        ]
        for (fd, path, flags) in files {
            if closed.contains(fd) {
                posix_spawn_file_actions_addclose(&actions, fd)
            } else {
                posix_spawn_file_actions_addopen(&actions, fd, cString(path), flags, 0o644)
            }
        }
        let program = Array(binary.path.utf8)
        let cArguments = ([program] + arguments).map { strdup(cString($0)) }
        defer { cArguments.forEach { free($0) } }
        var argv = cArguments + [nil]
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, cString(program), &actions, nil, &argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned)!) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return RawResult(stdout: scratch.read(Array("stdout".utf8)) ?? [],
                         stderr: scratch.read(Array("stderr".utf8)) ?? [], status: exitStatus)
    }
}
