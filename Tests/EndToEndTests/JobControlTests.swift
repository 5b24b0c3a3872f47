// Ctrl-Z with `--exec`: the terminal's SIGTSTP reaches pace's process group,
// not its commands' (each runs in a group of its own), so pace stops them
// with itself and continues them with itself. pace is started in a process
// group of its own, under the test (as a shell's job is), so that the
// kernel may stop it: a stop signal's default does nothing to an orphaned
// group. Synchronised on the command's pid file and on process states.

import Foundation
import Glibc
import Testing

/// The state letter of `pid` in /proc (`S` asleep, `T` stopped), if it exists.
private func state(_ pid: pid_t) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
}

@Suite("Ctrl-Z and --exec, end to end", .serialized)
struct JobControlTests {
    /// Runs pace (the path and arguments that follow) in a new process
    /// group, with no signal blocked (Foundation's Process hands its
    /// children a mask that blocks them; a shell's job starts with none).
    private let ownGroup = ["/usr/bin/python3", "-c", "import os, signal, sys; os.setpgid(0, 0); "
                            + "signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"]

    @Test("SIGTSTP stops the running command with pace; SIGCONT continues both", arguments: [false, true])
    func stopAndContinue(replay: Bool) throws {
        let dir = NSTemporaryDirectory() + "pace-tstp-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(dir, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let command = "echo $$ > \(dir)/pid.tmp; mv \(dir)/pid.tmp \(dir)/pid; exec sleep 300"
        let pace = try PipedPace(["--throttle", "1s", "--exec", command] + (replay ? ["--replay", "--time-format", "unix"] : []),
                                 .init(launcher: ownGroup))
        pace.write(replay ? "1 x\n" : "x\n")
        #expect(waitUntil { FileManager.default.fileExists(atPath: dir + "/pid") })
        let text = (try? String(contentsOfFile: dir + "/pid", encoding: .utf8)) ?? ""
        let commandPid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(waitUntil { state(commandPid) == "S" })
        #expect(pace.send(SIGTSTP))
        #expect(waitUntil { state(pace.pid) == "T" && state(commandPid) == "T" })
        kill(pace.pid, SIGCONT)
        #expect(waitUntil { state(pace.pid) == "S" && state(commandPid) == "S" })
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        #expect(end.errors == "")
        if end.status == nil { kill(-commandPid, SIGKILL) }
    }

    @Test("SIGTSTP then SIGCONT at once, round after round: pace and its commands never stay stopped")
    func stopThenContinueAtOnce() throws {
        let dir = NSTemporaryDirectory() + "pace-tstp-race-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(dir, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Forty commands: the handler's SIGTSTPs to their groups take long
        // enough for a SIGCONT to come before pace's own stop.
        let jobs = 40
        let command = "echo $$ > \(dir)/pid-$PACE_KEY.tmp; mv \(dir)/pid-$PACE_KEY.tmp \(dir)/pid-$PACE_KEY; exec sleep 300"
        let pace = try PipedPace(["--throttle", "1s", "--key-field", "1", "--jobs", "\(jobs)", "--exec", command],
                                 .init(launcher: ownGroup))
        pace.write((0..<jobs).map { "k\($0)\n" }.joined())
        func pids() -> [pid_t] {
            (0..<jobs).compactMap { k in
                (try? String(contentsOfFile: "\(dir)/pid-k\(k)", encoding: .utf8))
                    .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
        #expect(waitUntil { pids().count == jobs })
        let commands = pids()
        var stuck = false
        for _ in 0..<30 where !stuck {
            kill(pace.pid, SIGTSTP)
            kill(pace.pid, SIGCONT)
            stuck = !waitUntil(timeout: 3) { state(pace.pid) == "S" && commands.allSatisfy { state($0) == "S" } }
        }
        #expect(!stuck, "pace \(state(pace.pid) ?? "-"), commands \(commands.map { state($0) ?? "-" }.joined())")
        if stuck { kill(pace.pid, SIGCONT) }
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        if end.status == nil { for pid in commands { kill(-pid, SIGKILL) } }
    }
}
