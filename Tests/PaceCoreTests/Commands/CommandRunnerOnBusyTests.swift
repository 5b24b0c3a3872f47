// CommandRunner on real processes, one command per key and `--jobs` at once,
// under each `--on-busy`: drop, queue, and restart (SIGTERM, then SIGKILL
// after `--kill-after`). Commands are CommandRunnerTests' Fixture scripts;
// each test ends by checking that every pid its commands reported has been
// reaped.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

extension CommandRunnerTests {
    @Test("one command per key at a time, and --jobs commands at once")
    func onePerKeyAndJobs() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start; gate; ev end"), jobs: 2),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...4)
        try runner.submit("1 a", key: "a", number: 1)
        try runner.submit("2 a", key: "a", number: 2)
        try runner.submit("3 b", key: "b", number: 3)
        try runner.submit("4 c", key: "c", number: 4)
        // Two slots: lines 1 and 3 (2 waits for key a, 4 for a slot).
        let first = [try f.nextEvent(runner), try f.nextEvent(runner)]
        #expect(Set(first) == ["start 1", "start 3"])
        f.release(3)
        // The freed slot goes to c (a is still busy), not to line 2.
        #expect(try f.nextEvent(runner) == "end 3")
        #expect(try f.nextEvent(runner) == "start 4")
        f.release(1)
        #expect(try f.nextEvent(runner) == "end 1")
        #expect(try f.nextEvent(runner) == "start 2")
        f.release(4)
        f.release(2)
        let last = [try f.nextEvent(runner), try f.nextEvent(runner)]
        #expect(Set(last) == ["end 4", "end 2"])
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 4))
        f.expectAllReaped(count: 4)
    }

    @Test("--on-busy drop: a line whose key runs never runs, and goes to --dropped")
    func dropMode() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start; gate; ev end"), onBusy: .drop),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...3)
        try runner.submit("1 first", key: "a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        try runner.submit("2 second", key: "a", number: 2)
        #expect(runner.dropped.emissions == [Emitted(time: 0, "2 second")])
        f.release(1)
        #expect(try f.nextEvent(runner) == "end 1")
        try f.runUntilIdle(runner)
        try runner.submit("3 third", key: "a", number: 3)
        #expect(try f.nextEvent(runner) == "start 3")
        f.release(3)
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 2, notRun: 1))
        f.expectAllReaped(count: 2)
    }

    @Test("--on-busy queue: a busy key's lines run after it, in order")
    func queueMode() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start; gate; ev end"), jobs: 3),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...3)
        for n in 1...3 { try runner.submit("\(n) line", key: "k", number: EventNumber(n)) }
        for n in 1...3 {
            #expect(try f.nextEvent(runner) == "start \(n)")
            f.release(n)
            #expect(try f.nextEvent(runner) == "end \(n)")
        }
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 3))
        f.expectAllReaped(count: 3)
    }

    @Test("--on-busy restart: the old command gets SIGTERM, the waiting line is dropped, the newest runs")
    func restartMode() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'ev term; exit 0' TERM
            ev start; gate; ev end
            """), onBusy: .restart), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...3)
        try runner.submit("1 one", key: "a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        try runner.submit("2 two", key: "a", number: 2)
        try runner.submit("3 three", key: "a", number: 3)
        #expect(runner.dropped.emissions == [Emitted(time: 0, "2 two")])
        #expect(try f.nextEvent(runner) == "term 1")
        #expect(try f.nextEvent(runner) == "start 3")
        f.release(3)
        #expect(try f.nextEvent(runner) == "end 3")
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 2, restarted: 1, notRun: 1))
        // A command pace signalled is no failure.
        #expect(runner.exitStatus == 0)
        #expect(f.errors == "")
        f.expectAllReaped(count: 2)
    }

    @Test("a command that traps TERM is sent SIGKILL after --kill-after")
    func killAfter() throws {
        let f = Fixture()
        let killAfter: Nanoseconds = 200_000_000
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'ev term' TERM
            ev start
            while :; do gate; done
            """), onBusy: .restart, killAfter: killAfter), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...2)
        try runner.submit("1 one", key: "a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        let terminated = ProcessPlatform.monotonicNow()
        try runner.submit("2 two", key: "a", number: 2)
        #expect(try f.nextEvent(runner) == "term 1")
        // Line 1 ignores the SIGTERM: line 2 starts only once SIGKILL came.
        #expect(try f.nextEvent(runner) == "start 2")
        #expect(ProcessPlatform.monotonicNow() - terminated >= killAfter)
        // Shutdown: SIGTERM, then SIGKILL once more.
        try runner.shutdown(at: 0)
        #expect(try f.nextEvent(runner) == "term 2")
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 2, restarted: 1))
        #expect(runner.exitStatus == 0)
        #expect(f.errors == "")
        f.expectAllReaped(count: 2)
    }
}
