// CommandRunner on real processes as a run ends: end of input, a signal (while
// a write waits, during the blocking wait, a second one, the one the command
// got too), the waiting lines it discards and the backlog's table it gives
// back. Commands are CommandRunnerTests' Fixture scripts; each test ends by
// checking that every pid its commands reported has been reaped.

import Glibc
@testable import PaceCore
import PaceTesting
import Testing

extension CommandRunnerTests {
    @Test("while a write waits, a signal sends SIGTERM and arms SIGKILL; --dropped gets the waiting line once the write is done")
    func whileWriteWaits() throws {
        let f = Fixture()
        let traceFD = open(f.dir + "/trace", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(traceFD) }
        let killAfter: Nanoseconds = 60_000_000_000
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'ev term; exit 0' TERM
            ev start; gate
            """), killAfter: killAfter), dropped: RecordingSink(), errorFD: f.errorFD,
            trace: TraceWriter(fd: traceFD, flushesEachLine: true))
        f.makeGates(1...2)
        try runner.submit("1 a", key: "a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        try runner.submit("2 a", key: "a", number: 2)
        let started = "pace: trace: line 1: command started\n"
        #expect(f.file("trace") == bytes(started))
        // No signal: nothing to do, nothing due.
        #expect(runner.actWhileWriteWaits(terminating: false) == nil)
        let delay = try #require(runner.actWhileWriteWaits(terminating: true))
        #expect(delay <= killAfter && delay > killAfter - 10_000_000_000)
        // The discard and the trace would write: they wait, and the runner
        // asks to be driven at once.
        #expect(runner.dropped.emissions == [])
        #expect(f.file("trace") == bytes(started))
        #expect(runner.nextDeadline == 0)
        #expect(runner.isShutDown)
        #expect(try f.nextEvent(runner) == "term 1")
        #expect(runner.dropped.emissions == [Emitted(time: 0, "2 a")])
        #expect(runner.nextDeadline != 0)
        // (Its exit may be traced already.)
        #expect(f.file("trace").starts(with: bytes(started + "pace: trace: line 1: command sent SIGTERM: pace is stopping\n"
                                                   + "pace: trace: line 2: not run: pace is stopping\n")))
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 1, notRun: 1))
        #expect(runner.exitStatus == 0)
        #expect(f.errors == "")
        f.expectAllReaped(count: 1)
    }

    @Test("a start that waited behind a write is withdrawn when a signal came meanwhile: --dropped gets its line, nothing runs")
    func deferredStartAfterSignal() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start")), dropped: RecordingSink(),
                                   errorFD: f.errorFD)
        // A write waits: the start the queue asks for waits behind it.
        runner.writeWaiting = true
        try runner.submit("1 a", number: 1)
        runner.writeWaiting = false
        #expect(runner.nextDeadline == 0)
        try runner.shutdown(at: 0)
        #expect(runner.dropped.emissions == [Emitted(time: 0, "1 a")])
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.stats == CommandStats(run: 0, notRun: 1))
        #expect(runner.notRunAtShutdown == 1)
        #expect(f.errors == "")
        f.expectAllReaped(count: 0)
    }

    @Test("end of input waits for the running commands; shutdown discards the waiting ones")
    func endOfInputAndShutdown() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'echo "term $n" >> '\(f.dir)/log'; exit 0' TERM
            ev start; gate; echo "end $n" >> '\(f.dir)/log'
            """), jobs: 2), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...3)
        try runner.submit("1 a", key: "a", number: 1)
        try runner.submit("2 b", key: "b", number: 2)
        try runner.submit("3 c", key: "c", number: 3)
        #expect(Set([try f.nextEvent(runner), try f.nextEvent(runner)]) == ["start 1", "start 2"])
        runner.endOfInput()
        #expect(!runner.isFinished)
        f.release(1)
        // Line 3 takes line 1's slot; then a signal.
        #expect(try f.nextEvent(runner) == "start 3")
        try runner.shutdown(at: 7)
        try runner.submit(bytes("late"), time: 7, number: 4)
        try runner.waitUntilIdle(pendingSignal: noSignal)
        #expect(runner.isFinished)
        let log = Set(String(decoding: f.file("log"), as: UTF8.self).split(separator: "\n"))
        #expect(log == ["end 1", "term 2", "term 3"])
        #expect(runner.dropped.emissions == [Emitted(time: 7, "late")])
        #expect(runner.stats == CommandStats(run: 3, notRun: 1))
        f.expectAllReaped(count: 3)
    }

    @Test("the lines of a long backlog are stored in a table that shrinks once they are gone")
    func backlogTableShrinks() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'exit 0' TERM
            ev start; gate
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...1)
        for line in 1...20_000 { try runner.submit("\(line) a", number: EventNumber(line)) }
        #expect(try f.nextEvent(runner) == "start 1")
        #expect(runner.stored.count == 19_999)
        let peak = runner.stored.capacity
        // A signal: the 19,999 waiting lines go, not run.
        try runner.shutdown(at: 0)
        try runner.waitUntilIdle(pendingSignal: noSignal)
        #expect(runner.dropped.emissions.count == 19_999)
        #expect(runner.stored.isEmpty)
        #expect(peak >= 19_999 && runner.stored.capacity <= 1024)
        f.expectAllReaped(count: 1)
    }

    @Test("a signal during the blocking wait shuts down: SIGTERM to the running command")
    func signalDuringWait() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'ev term; exit 0' TERM
            ev start; gate
            """)), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...1)
        try runner.submit("1 a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        var pending: Int32 = 0
        // The wait sees the signal (as pace's handler would set it) at once.
        pending = SIGTERM
        try runner.waitUntilIdle(pendingSignal: { pending })
        #expect(try f.nextEvent(runner) == "term 1")
        #expect(runner.stats == CommandStats(run: 1))
        f.expectAllReaped(count: 1)
    }

    @Test("a second signal: SIGKILL at once to a command that ignores SIGTERM")
    func killAll() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("""
            trap 'ev term' TERM
            ev start
            while :; do gate; done
            """), killAfter: 3_600_000_000_000), dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...1)
        try runner.submit("1 a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        try runner.shutdown(at: 0)
        #expect(try f.nextEvent(runner) == "term 1")
        // A repeated shutdown changes nothing; killAll does not wait an hour.
        try runner.shutdown(at: 0)
        try runner.killAll(at: 0)
        try runner.finish(pendingSignal: noSignal)
        #expect(runner.isFinished)
        #expect(runner.exitStatus == 0)
        f.expectAllReaped(count: 1)
    }

    @Test("a command killed by the signal pace got too (`kill 0`) is no failure")
    func sameSignalAsPace() throws {
        let f = Fixture()
        let runner = CommandRunner(CommandOptions(command: f.command("ev start; gate; kill -INT $$")),
                                   dropped: RecordingSink(), errorFD: f.errorFD)
        f.makeGates(1...1)
        try runner.submit("1 a", number: 1)
        #expect(try f.nextEvent(runner) == "start 1")
        f.release(1)
        // SIGINT reaches pace and its command together: pace's flag is not
        // set yet when its wait starts, and is when the command's exit ends it.
        var looks = 0
        try runner.waitUntilIdle(pendingSignal: {
            looks += 1
            return looks > 1 ? SIGINT : 0
        })
        #expect(runner.exitStatus == 0)
        #expect(f.errors == "")
        f.expectAllReaped(count: 1)
    }
}
