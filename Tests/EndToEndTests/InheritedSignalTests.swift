// The signal dispositions pace is started with, and what its `--exec`
// commands get from them (ProcessSpawner, CommandRunner, Signals.install):
//
// - SIGCHLD handed over ignored (a parent may start pace so) would let the
//   kernel reap the commands itself, and pace could never learn how they
//   ended: pace sets it back to its default.
// - A signal ignored when pace started stays ignored in its commands, as a
//   shell leaves it (a non-interactive shell starts a background job with
//   SIGINT and SIGQUIT ignored, `nohup` ignores SIGHUP); SIGPIPE, which pace
//   ignores for itself, is at its default there.
//
// pace is started through coreutils' `env`, which sets every signal to its
// default and then ignores the ones named, so pace starts with exactly the
// dispositions a test names, whatever the test runner's own are. A command
// shows its shell's ignored signals: the SigIgn mask of /proc/PID/status.

import Foundation
import Glibc
import Testing

/// Whether `env` can set signal dispositions (GNU coreutils 8.31 and later).
private let envSetsSignals: Bool = {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["--default-signal", "--ignore-signal=INT", "true"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

/// pace's arguments for a run with `--exec command`, keyed on field 2 so that
/// both lines go through in either mode.
private func execArguments(live: Bool, command: String) -> [String] {
    ["--throttle", "1ns", "--key-field", "2"] + (live ? [] : ["--replay", "--time-format", "unix"])
        + ["--exec", command]
}

/// Starts pace with every signal at its default but `ignored` (names as
/// `env` takes them: `INT`, `CHLD`), feeds it two lines and waits for it.
private func runIgnoring(_ ignored: [String], live: Bool, command: String)
    throws -> (output: [UInt8], errors: String, status: Int32?) {
    let launcher = ["/usr/bin/env", "--default-signal"] + ignored.map { "--ignore-signal=\($0)" }
    let pace = try PipedPace(execArguments(live: live, command: command),
                             .init(prefill: Array("1 a\n2 b\n".utf8), closeStdin: true, launcher: launcher))
    return pace.finish()
}

/// The ordinary signals (1 to 31) in a `SigIgn:` line's mask. glibc's
/// posix_spawn leaves its own two real-time signals (32 and 33) ignored in
/// every child it starts; they are not pace's to pass on.
private func ordinaryIgnored(_ line: Substring) -> UInt64? {
    guard line.hasPrefix("SigIgn:\t"), let mask = UInt64(line.dropFirst("SigIgn:\t".count), radix: 16) else {
        return nil
    }
    return mask & 0x7FFF_FFFF
}

private func maskBit(_ signal: Int32) -> UInt64 { 1 << UInt64(signal - 1) }

@Suite("Inherited signal dispositions, end to end", .enabled(if: envSetsSignals, "env cannot set signal dispositions"))
struct InheritedSignalTests {
    /// With SIGCHLD left ignored, the kernel reaps each command as it exits:
    /// pace's waitpid finds no child, never learns the status, and (measured)
    /// spins on the exited command's pidfd for good. The command's shell must
    /// be able to wait for its own child too.
    @Test("a SIGCHLD inherited ignored is reset: pace reports each command's status, which waits for its own child",
          arguments: [false, true])
    func ignoredChildSignalIsReset(live: Bool) throws {
        let command = "sh -c 'exit 7'; echo \"$PACE_LINE: its child exited $?\"; exit 3"
        let end = try runIgnoring(["CHLD"], live: live, command: command)
        #expect(String(decoding: end.output, as: UTF8.self) == "1 a: its child exited 7\n2 b: its child exited 7\n")
        #expect(end.errors == "pace: line 1: command exited with status 3\npace: line 2: command exited with status 3\n")
        #expect(end.status == 123)
    }

    @Test("signals ignored when pace started stay ignored in its commands; SIGPIPE is at its default there",
          arguments: [false, true], [
              [],                        // nothing ignored: SIGPIPE, ignored by pace, must not leak
              ["INT", "QUIT"],           // a background job of a non-interactive shell
              ["HUP"],                   // nohup
              ["INT", "TERM", "USR1"],   // the three pace handles when they are not ignored
          ])
    func ignoredSignalsStayIgnored(live: Bool, ignored: [String]) throws {
        let numbers: [String: Int32] = ["HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "TERM": SIGTERM, "USR1": SIGUSR1]
        let expected = ignored.reduce(UInt64(0)) { $0 | maskBit(numbers[$1]!) }
        let end = try runIgnoring(ignored, live: live, command: "grep '^SigIgn:' /proc/$$/status")
        #expect(end.errors == "")
        #expect(end.status == 0)
        let lines = String(decoding: end.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2, "one SigIgn line per command: \(lines)")
        for line in lines {
            let mask = try #require(ordinaryIgnored(line), "not a SigIgn line: \(line)")
            #expect(mask == expected, "ignored: \(String(mask, radix: 16)), expected \(String(expected, radix: 16))")
            #expect(mask & maskBit(SIGPIPE) == 0)
        }
    }
}
