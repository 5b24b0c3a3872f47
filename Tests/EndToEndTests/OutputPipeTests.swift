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
