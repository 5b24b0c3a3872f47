// `--exec`'s commands as process groups (SPEC: Commands), through the built
// binary with real processes: pace's signals must reach what a command
// started, not its shell alone. Each command is an executable script that
// `/bin/sh -c` forks (dash does), so the script is pace's grandchild, and the
// script runs a child of its own, as `make` runs a compiler. Both say who
// they are on pace's stdout ("start N <pid>" from the script, "child N
// <pid>" from the child, which then execs `sleep`), and the tests
// synchronise on those lines, never on sleeps: where a rule says nothing of
// a command may remain, its processes are looked up the moment the rule
// applies. A process that died is gone, or a zombie waiting for init (which
// may never reap it, in a container), and has stopped either way.

import Foundation
import Glibc
import Testing

/// Whether `pid` has stopped running: no such process, or a zombie.
private func hasStopped(_ pid: pid_t?) -> Bool {
    guard let pid else { return false }
    if kill(pid, 0) == -1 && errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

/// Waits until `pid` has stopped (a process sent SIGKILL takes a moment to
/// die); false after `timeout` seconds.
private func waitUntilStopped(_ pid: pid_t?, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !hasStopped(pid) {
        if Date() >= deadline { return false }
        usleep(1000)
    }
    return true
}

/// An executable script in a scratch directory: for a line `N SECONDS`, it
/// prints "start N <pid>", runs a child that prints "child N <pid>" and then
/// sleeps SECONDS (ignoring SIGTERM when `childIgnoresTERM`), then appends
/// "marker N" to the directory's `marker` file.
private final class GroupScript {
    let dir: String
    var path: String { dir + "/script.sh" }

    init(childIgnoresTERM: Bool = false) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-groups-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let trap = childIgnoresTERM ? "trap \"\" TERM; " : ""
        let script = """
            #!/bin/sh
            set -- $PACE_LINE
            echo "start $1 $$"
            sh -c '\(trap)echo "child $0 $$"; exec sleep "$1"' "$1" "$2"
            echo "marker $1" >> '\(dir)/marker'

            """
        try writeExecutable(Array(script.utf8), to: path)
    }

    /// Writes `bytes` to a new executable at `path` through a descriptor
    /// closed on exec: a process other tests start meanwhile inherits the
    /// descriptor otherwise, and while any process holds the file open for
    /// writing, exec fails with "Text file busy" (ETXTBSY).
    private func writeExecutable(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    var marker: String { (try? String(contentsOfFile: dir + "/marker", encoding: .utf8)) ?? "" }
}

/// Whether every writer of the pipe `fd` reads from has closed it: no
/// process (an orphan of a command) holds pace's stdout any more.
private func allWritersClosed(_ fd: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLHUP) != 0
}

@Suite("--exec, process groups", .serialized)
struct ExecProcessGroupTests {
    @Test("restart: the old run's script and its child stop before the new line starts; no marker from the old run")
    func restartStopsTheWholeGroup() throws {
        let s = try GroupScript()
        // An hour's --kill-after: SIGTERM to the group is what stops it.
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "1h",
                                  "--exec", s.path])
        pace.write("1 30\n")
        let script = pid(pace.readLine())
        let child = pid(pace.readLine())
        pace.write("2 0\n")
        let next = pace.readLine()
        #expect(next?.hasPrefix("start 2 ") == true)
        // When line 2 starts, nothing of line 1's group runs.
        #expect(hasStopped(script))
        #expect(hasStopped(child))
        #expect(pace.readLine()?.hasPrefix("child 2 ") == true)
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 0)
        #expect(s.marker == "marker 2\n")
    }

    @Test("--kill-after: a child that ignores SIGTERM is sent SIGKILL with its group; then the new line runs")
    func killAfterReachesTheChild() throws {
        let s = try GroupScript(childIgnoresTERM: true)
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "300ms",
                                  "--exec", s.path])
        pace.write("1 30\n")
        let script = pid(pace.readLine())
        let child = pid(pace.readLine())
        pace.write("2 0\n")
        #expect(pace.readLine()?.hasPrefix("start 2 ") == true)
        // The script stopped at the SIGTERM; the child was sent SIGKILL
        // (SPEC: gone once sent it) and dies at once.
        #expect(hasStopped(script))
        #expect(waitUntilStopped(child))
        #expect(pace.readLine()?.hasPrefix("child 2 ") == true)
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 0)
        #expect(s.marker == "marker 2\n")
    }

    @Test("SIGTERM to pace with a grandchild sleeping: it stops too, and pace's stdout reaches its end",
          arguments: [false, true])
    func shutdownStopsGrandchildren(childIgnoresTERM: Bool) throws {
        let s = try GroupScript(childIgnoresTERM: childIgnoresTERM)
        let pace = try PipedPace(["--throttle", "1ns", "--kill-after", "300ms", "--exec", s.path])
        pace.write("1 30\n")
        let script = pid(pace.readLine())
        let child = pid(pace.readLine())
        #expect(pace.send(SIGTERM))
        // `pace | consumer` ends: no orphan holds the pipe (finish reads
        // stdout to its end).
        let (rest, errors, status) = pace.finish(closingInput: false)
        #expect(allWritersClosed(pace.output))
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 143)
        #expect(hasStopped(script))
        #expect(waitUntilStopped(child))
        #expect(s.marker == "")
    }

    @Test("a compound command (`a && b`): restart stops `a`, and `b` never runs")
    func compoundCommand() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-compound-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let command = """
            set -- $PACE_LINE; sh -c 'echo "child $0 $$"; exec sleep "$1"' "$1" "$2" && echo "after $1" >> '\(dir)/after'
            """
        let pace = try PipedPace(["--throttle", "1ns", "--on-busy", "restart", "--kill-after", "1h",
                                  "--exec", command])
        pace.write("1 30\n")
        let first = pid(pace.readLine())
        pace.write("2 0\n")
        #expect(pace.readLine()?.hasPrefix("child 2 ") == true)
        #expect(hasStopped(first))
        let (rest, errors, status) = pace.finish()
        #expect(rest == [])
        #expect(errors == "")
        #expect(status == 0)
        #expect((try? String(contentsOfFile: dir + "/after", encoding: .utf8)) == "after 2\n")
    }

    @Test("end of input waits for the shell only: what a command leaves in the background is its own")
    func endOfInputWaitsForTheShell() throws {
        // Pace.spawn waits with waitpid (Foundation's Process would wait
        // for every process holding a descriptor it passes down).
        let command = "sleep 30 </dev/null >/dev/null 2>&1 & echo \"bg $!\""
        let result = try Pace.spawn(["--throttle", "1ns", "--exec", command].map { Array($0.utf8) },
                                    stdin: Array("1\n".utf8))
        #expect(result.stderr == [])
        #expect(result.status == 0)
        let background = pid(String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init))
        #expect(background != nil && !hasStopped(background))
        if let background { kill(background, SIGKILL) }
    }

    @Test("SIGTERM to pace while a command is stopped: it is sent SIGCONT too, and ends without --kill-after's SIGKILL")
    func shutdownContinuesStoppedCommand() throws {
        // The command says who it is, then stops itself, as Ctrl-Z would.
        let pace = try PipedPace(["--throttle", "1ns", "--kill-after", "1h", "--exec", "echo \"start $$\"; kill -STOP $$"])
        pace.write("1\n")
        let shell = pid(pace.readLine())
        #expect(waitUntil {
            guard let shell, let stat = try? String(contentsOfFile: "/proc/\(shell)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
        })
        #expect(pace.send(SIGTERM))
        let (_, errors, status) = pace.finish(timeout: 10, closingInput: false)
        #expect(errors == "")
        #expect(status == 143)
        #expect(waitUntilStopped(shell))
    }
}
