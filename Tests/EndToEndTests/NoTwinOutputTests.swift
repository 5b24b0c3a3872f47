// The output path when pace cannot open its non-blocking twin of stdout
// (OutputPort, Platform/Linux.swift). The twin is the same pipe opened again
// through /proc/self/fd; when that fails, pace writes the shared, blocking
// descriptor itself, but only after ppoll has said it is writable, and at
// most PIPE_BUF bytes at a time, which a pipe that is writable takes without
// blocking: so it still never sleeps in write(2) with its signals blocked.
//
// A pipe can be opened again only by whom its mode allows: one made by root
// (the test) is rw------- root, so pace started as `nobody` (setpriv) gets
// EACCES for its twin, as under `sudo -u` with a pipe of the caller's. Each
// test checks that pace holds no second descriptor of the pipe, then that a
// slow reader gets every byte and that signals end a blocked write as they
// do with a twin. Without /proc at all, pace cannot run (the Swift runtime
// finds argv through /proc/self/maps), and must say so rather than crash.

import Foundation
import Glibc
import Testing

private let setpriv = "/usr/bin/setpriv"
private let unshare = "/usr/bin/unshare"

/// Runs `arguments` (a path and its arguments) with no input; its status.
private func status(of arguments: [String]) -> Int32? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    return process.terminationStatus
}

/// Starting pace as `nobody`: setpriv with a uid and gid of 65534, no groups.
private let asNobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]

/// Whether pace can be started as `nobody` here (root, setpriv, a binary
/// `nobody` may run).
private let canRunAsNobody = getuid() == 0 && status(of: asNobody + [Pace.binary.path, "--version"]) == 0

/// Whether this process may unshare its mount namespace and unmount /proc
/// in it (root with CAP_SYS_ADMIN, util-linux's unshare).
private let canUnmountProc = getuid() == 0 && status(of: [unshare, "-m", "/bin/sh", "-c", "umount -l /proc"]) == 0

/// `1us x` to `100000us x`: every line passes `--throttle 1ns` in replay.
private let microsecondLines = (1...100_000).map { "\($0)us x\n" }.joined()

/// A line of 50,000 bytes and its `\n`, starting with `head`.
private func bigLine(_ head: String) -> String {
    head + String(repeating: "x", count: 50_000 - head.utf8.count) + "\n"
}

/// The descriptors `pid` holds on the pipe that `fd` (the test's end) is one
/// end of.
private func descriptors(of pid: pid_t, onPipeOf fd: Int32) -> [String] {
    var info = stat()
    precondition(fstat(fd, &info) == 0)
    let pipe = "pipe:[\(info.st_ino)]"
    let directory = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == pipe }
        .sorted()
}

@Suite("Output without a twin of stdout, end to end", .serialized)
struct NoTwinOutputTests {
    @Test("pace as another user has no twin of stdout's pipe, and a slow reader gets every byte",
          .enabled(if: canRunAsNobody, "needs root and setpriv"), arguments: [false, true])
    func slowReaderGetsEveryByte(replay: Bool) throws {
        let input = replay ? microsecondLines : (1...100_000).map { "\($0)\n" }.joined()
        let path = try Pace.file(Array(input.utf8))
        let arguments = replay ? ["--throttle", "1ns", "--replay", path] : ["--throttle", "1ns", "--key-field", "1", path]
        let pace = try PipedPace(arguments, .init(launcher: asNobody))
        // The pipe is full and pace waits in ppoll for room, not in write(2).
        #expect(pace.waitUntilBlockedWriting(holding: 60_000) != nil)
        #expect(descriptors(of: pace.pid, onPipeOf: pace.output) == ["1"], "stdout's pipe, and no twin of it")
        let end = pace.finish(chunk: 4096)
        #expect(end.errors == "")
        #expect(end.status == 0)
        #expect(end.output.count == input.utf8.count)
        let same = end.output == Array(input.utf8)
        #expect(same)
    }

    /// As SignalAndDescriptorTests' tests with a twin: in live mode three
    /// 50,001-byte lines and a short one are pending at end of input and
    /// written one by one, and the pipe fills inside the second: line 2,
    /// line 3 and the last line are not written. In replay the 128 KiB buffer
    /// holding lines 1 and 2 goes to the output thread, the pipe fills after
    /// 65,536 bytes of it, and the replay goes on to its end: lines 2 to 5
    /// are not written.
    @Test("without a twin, a second signal while a write is blocked ends pace at once, counting the lines not written",
          .enabled(if: canRunAsNobody, "needs root and setpriv"), arguments: [false, true])
    func secondSignalEndsAtOnce(replay: Bool) throws {
        let input = replay
            ? bigLine("0s k1 ") + bigLine("0s k2 ") + bigLine("0s k3 ") + "5s k4 small\n12s k5 small\n"
            : bigLine("k1 ") + bigLine("k2 ") + bigLine("k3 ") + "k4 small\n"
        let arguments = ["--debounce", "10s", "--key-field", replay ? "2" : "1"] + (replay ? ["--replay"] : [])
        let pace = try PipedPace(arguments, .init(stdinPipeSize: 1 << 20, prefill: Array(input.utf8), closeStdin: true,
                                                  launcher: asNobody))
        let held = try #require(pace.waitUntilBlockedWriting())
        if replay { #expect(held == 65_536) }
        #expect(descriptors(of: pace.pid, onPipeOf: pace.output) == ["1"], "stdout's pipe, and no twin of it")
        #expect(pace.send(SIGTERM))
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 143)
        #expect(end.errors == "pace: interrupted: \(replay ? 4 : 3) lines not written\n")
        let written = end.output == Array(input.utf8.prefix(Int(held)))
        #expect(written)
    }

    @Test("with /proc not mounted, pace says it cannot read its command line, and does not crash",
          .enabled(if: canUnmountProc, "needs root and unshare"))
    func noProc() throws {
        // unshare execs sh, which unmounts /proc in the new mount namespace
        // (private: the test's own /proc stays) and execs pace.
        let result = try Pace.run(["-m", "/bin/sh", "-c", "umount -l /proc && exec \"$0\" \"$@\"", Pace.binary.path,
                                   "--throttle", "1s"],
                                  stdin: Array("a\n".utf8), executable: URL(fileURLWithPath: unshare))
        #expect(result == PaceResult(stdout: [], stderr: "pace: cannot read the command line (is /proc mounted?)\n",
                                     status: 1))
    }
}
