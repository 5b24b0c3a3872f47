// --exec and its modifiers on the command line: values, defaults, and the
// usage errors SPEC lists (bad values; a modifier without --exec).

import Testing
@testable import PaceCore

private func parse(_ arguments: [String]) -> Result<Command, UsageError> { parseArguments(arguments) }

@Suite("Command line: --exec")
struct ExecArgumentTests {
    @Test("--exec alone: queue, one job, SIGKILL 5 s after SIGTERM; CMD kept as its bytes")
    func defaults() throws {
        guard case let .success(.run(config)) = parse(["--debounce", "1s", "--exec", "make -C 'src dir' é"]) else {
            Issue.record("no run")
            return
        }
        #expect(config.exec == CommandOptions(command: Array("make -C 'src dir' é".utf8), onBusy: .queue, jobs: 1,
                                              killAfter: 5_000_000_000))
    }

    @Test("every modifier, both spellings")
    func modifiers() throws {
        guard case let .success(.run(config)) = parse([
            "--throttle", "1s", "--exec=notify-send x", "--on-busy", "restart", "--jobs=4", "--kill-after", "250ms",
        ]) else {
            Issue.record("no run")
            return
        }
        #expect(config.exec == CommandOptions(command: Array("notify-send x".utf8), onBusy: .restart, jobs: 4,
                                              killAfter: 250_000_000))
        guard case let .success(.run(drop)) = parse(["--throttle", "1s", "--exec", "true", "--on-busy=drop"]) else {
            Issue.record("no run")
            return
        }
        #expect(drop.exec?.onBusy == .drop)
    }

    @Test("no --exec: nothing to run")
    func noExec() throws {
        guard case let .success(.run(config)) = parse(["--debounce", "1s"]) else {
            Issue.record("no run")
            return
        }
        #expect(config.exec == nil)
    }

    @Test("usage errors", arguments: [
        (["--debounce", "1s", "--on-busy", "drop"], "'--on-busy' only applies with --exec"),
        (["--debounce", "1s", "--jobs", "2"], "'--jobs' only applies with --exec"),
        (["--debounce", "1s", "--kill-after", "1s"], "'--kill-after' only applies with --exec"),
        (["--debounce", "1s", "--exec", "x", "--on-busy", "cancel"], "invalid value 'cancel' for '--on-busy' (choose queue, drop or restart)"),
        (["--debounce", "1s", "--exec", "x", "--jobs", "0"], "invalid value '0' for '--jobs' (a whole number from 1 to 100000)"),
        (["--debounce", "1s", "--exec", "x", "--jobs", "-3"], "invalid value '-3' for '--jobs' (a whole number from 1 to 100000)"),
        (["--debounce", "1s", "--exec", "x", "--jobs", "2.5"], "invalid value '2.5' for '--jobs' (a whole number from 1 to 100000)"),
        (["--debounce", "1s", "--exec", "x", "--jobs", "100001"], "invalid value '100001' for '--jobs' (a whole number from 1 to 100000)"),
        (["--debounce", "1s", "--exec", "x", "--kill-after", "0s"], "'--kill-after' must be greater than zero (got '0s')"),
        (["--debounce", "1s", "--exec", "x", "--kill-after", "5"], "invalid duration '5' for '--kill-after': a number needs a unit"),
        (["--debounce", "1s", "--exec"], "missing value for '--exec <command>'"),
        (["--debounce", "1s", "--exec", "a", "--exec", "b"], "option '--exec' given more than once"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) {
        guard case let .failure(error) = parse(arguments) else {
            Issue.record("\(arguments) parsed")
            return
        }
        #expect(error.message == message)
    }

    @Test("CMD's bytes as typed: invalid UTF-8 survives, with either spelling")
    func rawCommand() {
        let latin1: [UInt8] = Array("echo caf".utf8) + [0xE9]
        let throttle = [Array("--throttle".utf8), Array("1s".utf8)]
        for arguments in [throttle + [Array("--exec".utf8), latin1], throttle + [Array("--exec=".utf8) + latin1]] {
            guard case let .success(.run(config)) = parseArguments(bytes: arguments) else {
                Issue.record("no run")
                continue
            }
            #expect(config.exec?.command == latin1)
        }
    }
}
