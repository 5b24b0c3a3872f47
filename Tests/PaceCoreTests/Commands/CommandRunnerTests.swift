// CommandRunner on real processes: small sh scripts that report on a FIFO
// ("start 3", "end 3") and block on a gate FIFO of their own until the test
// opens it, so every ordering is forced by the test, never by sleeping. Each
// test ends by checking that every pid its commands reported has been reaped
// (waitpid says ECHILD: no zombie, no child left running). Here: the line on
// stdin and in the environment, and failures; `--on-busy` is
// CommandRunnerOnBusyTests', the end of a run CommandRunnerShutdownTests'.

import Glibc
import Foundation
@testable import PaceCore
import PaceTesting
import Testing

/// A scratch directory with the events FIFO, gates, and a stderr file.
final class Fixture {
    let dir: String
    private var eventsFD: Int32 = -1
    /// Kept open so that the FIFO never reads as ended between writers.
    private var eventsWriter: Int32 = -1
    private var received: [UInt8] = []
    let errorFD: Int32

    init() {
        var template = Array("/tmp/pace-exec-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        mkfifo(dir + "/events", 0o600)
        eventsFD = open(dir + "/events", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        eventsWriter = open(dir + "/events", O_WRONLY | O_CLOEXEC)
        errorFD = open(dir + "/stderr", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    }

    deinit {
        close(eventsFD)
        close(eventsWriter)
        close(errorFD)
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A command that sources `body` (so `$$` is the command's own pid),
    /// with `ev start` writing "start <n>" to the events FIFO and `gate`
    /// blocking until the test calls `release(n)`, n being the line's first
    /// word (the tests' lines start with their number).
    func command(_ body: String) -> [UInt8] {
        let script = """
            echo $$ >> '\(dir)/pids'
            n=${PACE_LINE%% *}
            ev() { echo "$1 $n" > '\(dir)/events'; }
            gate() { { read x < '\(dir)/gate-'"$n"; } 2>/dev/null || :; }
            \(body)

            """
        _ = FileManager.default.createFile(atPath: dir + "/script", contents: Data(script.utf8))
        return Array(". '\(dir)/script'".utf8)
    }

    func makeGates(_ lines: ClosedRange<Int>) {
        for line in lines { mkfifo(dir + "/gate-\(line)", 0o600) }
    }

    /// Lets line `line`'s command past its gate (blocks until it is there).
    func release(_ line: Int) {
        let fd = open(dir + "/gate-\(line)", O_WRONLY | O_CLOEXEC)
        close(fd)
    }

    /// The next event a command reported, driving `runner` meanwhile (its
    /// exits, stdin pipes and kill timers); nil after 20 s without one.
    func nextEvent<D>(_ runner: CommandRunner<D>) throws -> String? {
        let giveUp = ProcessPlatform.monotonicNow() + 20_000_000_000
        while true {
            if let newline = received.firstIndex(of: 0x0A) {
                let line = String(decoding: received[..<newline], as: UTF8.self)
                received.removeSubrange(...newline)
                return line
            }
            let now = ProcessPlatform.monotonicNow()
            if now >= giveUp { return nil }
            let until = min(giveUp, runner.nextDeadline ?? giveUp)
            var fds = [pollfd(fd: eventsFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: runner.readinessFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, Int32(max(0, (until - now).count / 1_000_000) + 1))
            if fds[0].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = read(eventsFD, &chunk, chunk.count)
                if n > 0 { received += chunk[..<n] }
            }
            try runner.handleReady()
        }
    }

    /// Drives `runner` until no command runs or waits (20 s at most).
    func runUntilIdle<D>(_ runner: CommandRunner<D>) throws {
        let giveUp = ProcessPlatform.monotonicNow() + 20_000_000_000
        while !runner.isIdle && ProcessPlatform.monotonicNow() < giveUp {
            var fds = [pollfd(fd: runner.readinessFD, events: Int16(POLLIN), revents: 0)]
            let wait = runner.nextDeadline.map { max(0, ($0 - ProcessPlatform.monotonicNow()).count / 1_000_000) + 1 } ?? 1_000
            _ = poll(&fds, 1, Int32(wait))
            try runner.handleReady()
        }
    }

    func file(_ name: String) -> [UInt8] {
        (try? Array(Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))) ?? []
    }

    var errors: String { String(decoding: file("stderr"), as: UTF8.self) }

    /// Every pid a command reported, each already reaped by the runner.
    func expectAllReaped(count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let pids = String(decoding: file("pids"), as: UTF8.self).split(separator: "\n").compactMap { pid_t($0) }
        #expect(pids.count == count, sourceLocation: sourceLocation)
        for pid in pids {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            #expect(result == -1 && errno == ECHILD, "pid \(pid) is still a child", sourceLocation: sourceLocation)
        }
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

extension CommandRunner {
    func submit(_ line: [UInt8], key: [UInt8] = [], time: Instant = 0, count: Int64 = 1,
                            number: EventNumber) throws {
        try line.withUnsafeBytes { l in
            try key.withUnsafeBytes { k in
                try submit(line: l, key: k, time: time, count: count, lineNumber: number)
            }
        }
    }

    func submit(_ line: String, key: String = "", number: EventNumber) throws {
        try submit(bytes(line), key: bytes(key), number: number)
    }
}

func noSignal() -> Int32 { 0 }

@Suite("CommandRunner with real processes", .serialized)
struct CommandRunnerTests {
    @Test("stdin gets the line and a newline; PACE_* in the environment, PACE_LINE cut at the NUL")
    func environmentAndStdin() throws {
        let f = Fixture()
        setenv("PACE_LINE", "stale", 1)
        let runner = CommandRunner(CommandOptions(command: f.command("""
            cat > '\(f.dir)/stdin'
            printf '%s|%s|%s|%s|%s' "$PACE_LINE" "$PACE_KEY" "$PACE_TIME" "$PACE_COUNT" "$HOME" > '\(f.dir)/env'
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        unsetenv("PACE_LINE")
        let line: [UInt8] = [0x61, 0xFF, 0xFE, 0x00, 0x62, 0x0D]
        try runner.submit(line, key: [0x6B, 0xC3, 0x28], time: 1_500_000_999, count: 3, number: 1)
        try runner.finish(pendingSignal: noSignal)
        #expect(f.file("stdin") == line + [0x0A])
        let home = String(cString: getenv("HOME"))
        #expect(f.file("env") == [0x61, 0xFF, 0xFE] + bytes("|") + [0x6B, 0xC3, 0x28] + bytes("|1.500000|3|\(home)"))
        #expect(runner.stats == CommandStats(run: 1))
        #expect(runner.exitStatus == 0)
        #expect(runner.isFinished)
        #expect(f.errors == "")
        f.expectAllReaped(count: 1)
    }

    @Test("a negative time is written as --emit-time writes it")
    func negativeTime() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("printf %s \"$PACE_TIME\" > '\(f.dir)/env'")),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        try runner.submit(bytes("x"), time: -1, number: 1)
        try runner.finish(pendingSignal: noSignal)
        #expect(f.file("env") == bytes("-0.000001"))
        f.expectAllReaped(count: 1)
    }

    @Test("a 1 MiB line: stdin gets it whole; PACE_LINE is cut to the kernel's limit for one string")
    func longLine() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            wc -c > '\(f.dir)/stdin'
            printf %s "$PACE_LINE" | wc -c > '\(f.dir)/env'
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        try runner.submit([UInt8](repeating: 0x78, count: 1 << 20), number: 1)
        try runner.finish(pendingSignal: noSignal)
        #expect(String(decoding: f.file("stdin"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "1048577")
        #expect(String(decoding: f.file("env"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "131061")
        #expect(f.errors == "")
        f.expectAllReaped(count: 1)
    }

    @Test("PACE_LINE at the kernel's limit: a string of 131,072 bytes with its name and NUL is passed whole, one byte more is cut")
    func lineAtTheLimit() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            printf '%s %s\\n' "$(wc -c)" "$(printf %s "$PACE_LINE" | wc -c)" >> '\(f.dir)/sizes'
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        // MAX_ARG_STRLEN: 32 pages (131,072 bytes with 4 KiB pages), for
        // `PACE_LINE=` (10 bytes), the value and the NUL.
        let limit = 32 * Int(sysconf(Int32(_SC_PAGESIZE))) - 10 - 1
        try runner.submit([UInt8](repeating: 0x78, count: limit), number: 1)
        try runner.waitUntilIdle(pendingSignal: noSignal)
        try runner.submit([UInt8](repeating: 0x78, count: limit + 1), number: 2)
        try runner.finish(pendingSignal: noSignal)
        #expect(String(decoding: f.file("sizes"), as: UTF8.self) == "\(limit + 1) \(limit)\n\(limit + 2) \(limit)\n")
        #expect(limit == 131_061 || sysconf(Int32(_SC_PAGESIZE)) != 4096)
        #expect(f.errors == "")
        #expect(runner.exitStatus == 0)
        f.expectAllReaped(count: 2)
    }

    @Test("a command that never reads a long stdin does not stall pace")
    func unreadStdin() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start; gate")),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...1)
        try runner.submit(bytes("1 ") + [UInt8](repeating: 0x78, count: 4 << 20), number: 1)
        // submit returned with the pipe full: pace goes on.
        #expect(try f.nextEvent(runner) == "start 1")
        f.release(1)
        try f.runUntilIdle(runner)
        #expect(runner.isIdle)
        #expect(runner.exitStatus == 0)
        f.expectAllReaped(count: 1)
    }

    @Test("a failing command: its stderr line, pace goes on, exit status 123")
    func failingCommand() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            case "$PACE_LINE" in
            fail) exit 3 ;;
            die) kill -9 $$ ;;
            esac
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        try runner.submit("fail", number: 4)
        try runner.waitUntilIdle(pendingSignal: noSignal)
        try runner.submit("ok", number: 5)
        try runner.waitUntilIdle(pendingSignal: noSignal)
        try runner.submit("die", number: 9)
        try runner.finish(pendingSignal: noSignal)
        #expect(f.errors == "pace: line 4: command exited with status 3\npace: line 9: command killed by signal 9\n")
        #expect(runner.stats == CommandStats(run: 3, failed: 2))
        #expect(runner.exitStatus == 123)
        f.expectAllReaped(count: 3)
    }

    @Test("a command that cannot be started: an error (exit 1); nothing more starts")
    func cannotStart() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: bytes("true")), dropped: RecordingSink(),
                                   shell: bytes("/nonexistent/sh"), errorFD: f.errorFD)
        try runner.submit("one", number: 1)
        try runner.submit("two", number: 2)
        try runner.finish(pendingSignal: noSignal)
        #expect(f.errors == "pace: line 1: cannot run /nonexistent/sh: No such file or directory\n")
        #expect(runner.dropped.emissions == [Emitted(time: 0, "one"), Emitted(time: 0, "two")])
        #expect(runner.stats == CommandStats(run: 0, notRun: 2))
        #expect(runner.exitStatus == 1)
    }
}
