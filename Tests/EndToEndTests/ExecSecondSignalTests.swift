// A second signal while a command's group outlives its shell: the shell died
// of the first SIGTERM, a child ignoring it lives on in the group. The
// second signal sends the group SIGKILL, and pace must end then: no exit is
// left to wake its wait (a hostile round found it waiting for ever).

import Foundation
import Glibc
import Testing

@Suite("--exec and a second signal, end to end", .serialized)
struct ExecSecondSignalTests {
    @Test("the second signal ends pace at once though the group's shell had already exited", arguments: [false, true])
    func groupOutlivesShell(replay: Bool) throws {
        let dir = NSTemporaryDirectory() + "pace-exec-2nd-\(getpid())-\(UUID().uuidString)"
        #expect(mkdir(dir, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The shell writes its pid, then a child that ignores SIGTERM writes
        // its own and sleeps.
        let command = "echo $$ > \(dir)/shell; (trap '' TERM; exec sh -c 'echo $$ > \(dir)/child.tmp; "
            + "mv \(dir)/child.tmp \(dir)/child; exec sleep 300')"
        let pace = try PipedPace(["--throttle", "1s", "--exec", command] + (replay ? ["--replay", "--time-format", "unix"] : []))
        pace.write(replay ? "1 x\n" : "x\n")
        func pid(_ name: String) -> pid_t? {
            (try? String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8))
                .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        #expect(waitUntil { pid("child") != nil })
        let shell = try #require(pid("shell"))
        let child = try #require(pid("child"))
        #expect(pace.send(SIGTERM))
        // The shell is gone (reaped by pace); its child lives on.
        #expect(waitUntil { access("/proc/\(shell)", F_OK) != 0 })
        #expect(kill(child, 0) == 0)
        #expect(pace.send(SIGTERM))
        let end = pace.finish(timeout: 5, closingInput: false)
        #expect(end.status == 143)
        #expect(end.errors == "pace: interrupted: 0 lines not run\n")
        #expect(waitUntil { access("/proc/\(child)", F_OK) != 0 || isZombie(child) })
        if end.status == nil { kill(child, SIGKILL) }
    }

    private func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }
}
