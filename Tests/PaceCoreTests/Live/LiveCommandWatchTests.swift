// The live loop with `--exec`'s runner watched, on the scripted clock: every
// wait is given the runner's descriptor and kill deadline, and a wake for the
// runner lets it act, between reads, without disturbing the lines. A fake
// runner stands in for processes (CommandRunnerTests and the end-to-end tests
// have the real ones).

import Glibc
import Testing
import PaceCore
import PaceTesting

/// A runner that only counts its wake-ups.
private final class FakeWatch: CommandWatch {
    let readinessFD: Int32 = 42
    var nextDeadline: Instant?
    private(set) var wakes = 0

    init(nextDeadline: Instant?) { self.nextDeadline = nextDeadline }

    func commandsReady() throws(OutputError) { wakes += 1 }
}

@Suite("Live loop with --exec's runner")
struct LiveCommandWatchTests {
    @Test("each wait watches the runner; .commandsReady wakes it once and the lines go on")
    func watchesAndWakes() {
        guard case let .success(.run(configuration)) = parseArguments(["--debounce", "100ms"]) else {
            Issue.record("bad arguments")
            return
        }
        let input = ScriptedClock.Pipe()
        var clock = ScriptedClock(wallAtStart: 1_795_953_600_000_000_000, steps: [
            (0, .input("a\n")),
            (10_000_000, .commandsReady),
            (20_000_000, .input("b\n")),
            (30_000_000, .endOfInput),
        ], inputWriter: input.writer)
        let origin = clock.monotonicNow()
        let watch = FakeWatch(nextDeadline: origin + 5_000_000_000)
        var reader = LineReader(fd: input.reader)
        var sink = RecordingSink()
        let report = runLive(configuration, clock: &clock, input: &reader, output: &sink, recordFD: nil,
                             commands: watch, signals: .none)
        close(input.reader)
        #expect(report.end == .endOfInput)
        #expect(watch.wakes == 1)
        // b replaced a: the wake in between changed nothing for the policy.
        #expect(sink.emissions.map { String(decoding: $0.line, as: UTF8.self) } == ["b"])
        // Four waits (before a, the wake, before b, the end), all watching.
        #expect(clock.commandWaits.count == 4)
        #expect(clock.commandWaits.allSatisfy { $0.fd == 42 && $0.deadline == 5_000_000_000 })
    }
}
