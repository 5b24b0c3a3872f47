// Replay asks the kernel to let a pipe it is given as stdout hold 1 MiB
// (OutputPipe): read back with F_GETPIPE_SZ on the test's end of the pipe,
// once pace has printed a line (so it has started writing). A pipe already
// as large is not shrunk, live mode and `--exec` leave their stdout alone,
// and a refusal (past /proc/sys/fs/pipe-max-size, for a process without
// CAP_SYS_RESOURCE) changes nothing: no message, the same output and status.

import Foundation
import Glibc
import Testing

/// fcntl's F_GETPIPE_SZ (Linux), which the Glibc module leaves out.
private let getPipeSize: Int32 = 1032

private func capacity(of fd: Int32) -> Int32 { fcntl(fd, getPipeSize) }

/// Linux's default pipe on 4 KiB pages, which PipedPace sets, and what
/// replay asks for.
private let defaultPipe: Int32 = 65_536
private let mebibyte: Int32 = 1 << 20

/// A size past /proc/sys/fs/pipe-max-size, if the kernel refuses it to this
/// process (as to any user without CAP_SYS_RESOURCE), and so to the pace
/// it starts.
private let refusedSize: Int32? = {
    guard let text = try? String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8),
          let maximum = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    defer { for fd in fds { close(fd) } }
    return fcntl(fds[1], 1031, 2 * maximum) < 0 && errno == EPERM ? 2 * maximum : nil
}()

@Suite("stdout's pipe, end to end", .serialized)
struct OutputPipeTests {
    /// Starts pace on a stdout pipe of `size` bytes, writes `line`, reads
    /// it back (or `printed`), and returns the pipe's capacity then; pace
    /// must then end cleanly.
    private func pipeCapacity(_ arguments: [String], pipe size: Int32 = defaultPipe, line: String = "0s a",
                              printed: String? = nil, launcher: [String] = []) throws -> Int32 {
        let pace = try PipedPace(arguments, .init(stdoutPipeSize: size, sizesPipe: true, launcher: launcher))
        pace.write(line + "\n")
        #expect(pace.readLine() == printed ?? line)
        let capacity = capacity(of: pace.output)
        let end = pace.finish()
        #expect(end.output == [])
        #expect(end.errors == "")
        #expect(end.status == 0)
        return capacity
    }

    // The output thread may leave a buffer half written while its reader is
    // slow: anything else pace wrote into that pipe meanwhile (a message,
    // a dropped line) would land inside a line. So the thread is there
    // only for a pipe of stdout's own, seen here while pace waits for its
    // reader (/proc/PID/task: its threads).
    @Test("replay writes into a pipe of its own on a second thread, and on its one thread when stderr or --dropped shares it",
          arguments: ["none", "stderr", "dropped"])
    func threadOnlyForAPipeOfItsOwn(shared: String) throws {
        let input = (1...100_000).map { "\($0)us line \($0)\n" }.joined()
        let path = try Pace.file(Array(input.utf8))
        let arguments = ["--throttle", "1ns", "--replay", path] + (shared == "dropped" ? ["--dropped", "/dev/stdout"] : [])
        let launcher = shared == "stderr" ? ["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"] : []
        let pace = try PipedPace(arguments, .init(launcher: launcher))
        #expect(pace.waitUntilBlockedWriting() != nil)
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pace.pid)/task").count
        #expect(threads == (shared == "none" ? 2 : 1))
        let end = pace.finish()
        let all = end.output == Array(input.utf8)
        #expect(all)
        #expect(end.status == 0)
    }

    @Test("replay makes a 64 KiB pipe as stdout hold 1 MiB")
    func replayEnlargesThePipe() throws {
        #expect(try pipeCapacity(["--replay", "--throttle", "1s"]) == mebibyte)
    }

    @Test("replay makes a smaller pipe hold 1 MiB too")
    func replayEnlargesASmallPipe() throws {
        #expect(try pipeCapacity(["--replay", "--throttle", "1s"], pipe: 4096) == mebibyte)
    }

    @Test("replay never shrinks a pipe: asked for 256 KiB, a 1 MiB pipe stays 1 MiB")
    func replayKeepsALargerPipe() throws {
        #expect(try pipeCapacity(["--replay", "--throttle", "1s"], pipe: mebibyte,
                                 launcher: ["/usr/bin/env", "PACE_PIPE_SIZE=262144"]) == mebibyte)
    }

    @Test("live mode leaves its stdout's pipe as it is")
    func liveLeavesThePipe() throws {
        #expect(try pipeCapacity(["--throttle", "1s"], line: "a") == defaultPipe)
    }

    @Test("--exec leaves stdout's pipe to its commands, in replay and live", arguments: [false, true])
    func execLeavesThePipe(replay: Bool) throws {
        let arguments = ["--throttle", "1s", "--exec", "cat"] + (replay ? ["--replay"] : [])
        #expect(try pipeCapacity(arguments, line: replay ? "0s a" : "a") == defaultPipe)
    }

    @Test("a size the kernel refuses leaves the pipe as it was, and the run as it would have been",
          .enabled(if: refusedSize != nil, "needs a size past pipe-max-size that the kernel refuses here"))
    func refusalIsQuiet() throws {
        let asked = ["/usr/bin/env", "PACE_PIPE_SIZE=\(refusedSize ?? 0)"]
        #expect(try pipeCapacity(["--replay", "--throttle", "1s"], launcher: asked) == defaultPipe)
    }
}
