// CommandQueue, rule by rule of SPEC's Commands section, on plain values: no
// process, no clock (instants are given with each action). Every reduce's
// effects are asserted whole, and each test ends by checking that input can
// end with nothing left running, waiting or armed.

@testable import PaceCore
import Testing

private typealias Queue = CommandQueue<String>
private typealias E = CommandEffect<String>

/// A queue under test, with shorthands for its actions.
private struct Harness {
    var queue: Queue

    init(jobs: Int = 1, onBusy: OnBusy = .queue, killAfter: Nanoseconds = 5_000) {
        queue = Queue(jobs: jobs, onBusy: onBusy, killAfter: killAfter)
    }

    mutating func submit(_ line: EventNumber, _ key: String, count: Int64 = 1, at now: Instant = 0) -> [E] {
        queue.reduce(.submit(line, key: key, count: count, now: now))
    }

    mutating func exited(_ line: EventNumber) -> [E] { queue.reduce(.exited(line)) }

    /// The shell of a command pace sent SIGTERM exited, its group not empty.
    mutating func exitedLeavingGroup(_ line: EventNumber, at now: Instant) -> [E] {
        queue.reduce(.exited(line, groupRemains: true, now: now))
    }

    mutating func fire(at now: Instant) -> [E] { queue.reduce(.timerFired(now: now)) }

    /// Ends input once nothing is left, expecting `.finished` exactly then.
    mutating func endWhenIdle(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(queue.runningCount == 0, sourceLocation: sourceLocation)
        #expect(queue.waitingCount == 0, sourceLocation: sourceLocation)
        #expect(queue.nextDeadline == nil, sourceLocation: sourceLocation)
        #expect(queue.reduce(.endOfInput) == [.finished], sourceLocation: sourceLocation)
        #expect(queue.isFinished, sourceLocation: sourceLocation)
    }
}

@Suite("CommandQueue")
struct CommandQueueTests {
    // MARK: - One per key, --jobs

    @Test("a line starts at once when its key and a slot are free")
    func startsAtOnce() {
        var h = Harness()
        #expect(h.submit(1, "a", count: 3) == [.start(1, key: "a", count: 3)])
        #expect(h.exited(1) == [])
        h.endWhenIdle()
        #expect(h.queue.stats == CommandQueueStats(started: 1, restarted: 0, notRun: 0))
    }

    @Test("at most one command per key, even with free slots: queue runs them in order")
    func onePerKey() {
        var h = Harness(jobs: 4)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a") == [])
        #expect(h.submit(3, "a") == [])
        #expect(h.queue.waitingCount == 2)
        #expect(h.exited(1) == [.start(2, key: "a", count: 1)])
        #expect(h.exited(2) == [.start(3, key: "a", count: 1)])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
    }

    @Test("--jobs N: N keys run at once, the next waits for a slot")
    func jobsLimit() {
        var h = Harness(jobs: 2)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "c") == [])
        #expect(h.queue.runningCount == 2)
        #expect(h.exited(2) == [.start(3, key: "c", count: 1)])
        #expect(h.exited(1) == [])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
    }

    @Test("a freed slot goes to the earliest emitted waiting line whose key is free")
    func earliestWaitingLineFirst() {
        var h = Harness(jobs: 1)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "c") == [])
        #expect(h.submit(3, "b") == [])
        #expect(h.submit(4, "c") == [])
        #expect(h.exited(1) == [.start(2, key: "c", count: 1)])
        // c's next line (4) is older than nothing else free but b's (3).
        #expect(h.exited(2) == [.start(3, key: "b", count: 1)])
        #expect(h.exited(3) == [.start(4, key: "c", count: 1)])
        #expect(h.exited(4) == [])
        h.endWhenIdle()
    }

    @Test("a busy key's waiting line does not hold back other keys")
    func busyKeyDoesNotBlock() {
        var h = Harness(jobs: 2)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "a") == [])  // a is busy
        #expect(h.submit(4, "c") == [])  // no slot
        // b's slot frees: a's line 3 is earlier but a still runs, so c goes.
        #expect(h.exited(2) == [.start(4, key: "c", count: 1)])
        #expect(h.exited(1) == [.start(3, key: "a", count: 1)])
        #expect(h.exited(4) == [])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
    }

    @Test("a key that waited only for a slot is busy too: queue keeps both in order")
    func waitingForSlotIsBusy() {
        var h = Harness(jobs: 1)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [])
        #expect(h.submit(3, "b") == [])
        #expect(h.exited(1) == [.start(2, key: "b", count: 1)])
        #expect(h.exited(2) == [.start(3, key: "b", count: 1)])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
    }

    // MARK: - --on-busy drop

    @Test("drop: a line whose key runs is discarded and its count goes to the key's next line")
    func dropWhileRunning() {
        var h = Harness(jobs: 2, onBusy: .drop)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", count: 2) == [.discard(2, .busy)])
        #expect(h.submit(3, "b") == [.start(3, key: "b", count: 1)])
        #expect(h.exited(1) == [])
        #expect(h.submit(4, "a") == [.start(4, key: "a", count: 3)])
        #expect(h.exited(4) == [])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
        #expect(h.queue.stats == CommandQueueStats(started: 3, restarted: 0, notRun: 1))
    }

    @Test("drop: a line whose key has a line waiting for a slot is discarded")
    func dropWhileWaiting() {
        var h = Harness(jobs: 1, onBusy: .drop)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [])
        #expect(h.submit(3, "b") == [.discard(3, .busy)])
        #expect(h.exited(1) == [.start(2, key: "b", count: 1)])
        #expect(h.exited(2) == [])
        // The discarded line's count is owed to b's next line.
        #expect(h.submit(4, "b") == [.start(4, key: "b", count: 2)])
        #expect(h.exited(4) == [])
        h.endWhenIdle()
    }

    // MARK: - --on-busy restart

    @Test("restart: the running command gets SIGTERM, the new line runs once it exited")
    func restartRunning() {
        var h = Harness(onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 10) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 20) == [.terminate(1), .armKillTimer(at: 120)])
        #expect(h.queue.nextKillDeadline == 120)
        #expect(h.exited(1) == [.start(2, key: "a", count: 1)])
        #expect(h.queue.nextKillDeadline == nil)
        #expect(h.exited(2) == [])
        h.endWhenIdle()
        #expect(h.queue.stats == CommandQueueStats(started: 2, restarted: 1, notRun: 0))
    }

    @Test("restart: the newest line wins; the waiting one is discarded, its count carried; one SIGTERM")
    func restartReplacesWaiting() {
        var h = Harness(onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", count: 2, at: 10) == [.terminate(1), .armKillTimer(at: 110)])
        // Already terminated: no second SIGTERM, no second timer.
        #expect(h.submit(3, "a", count: 4, at: 20) == [.discard(2, .replaced)])
        #expect(h.submit(4, "a", count: 1, at: 30) == [.discard(3, .replaced)])
        #expect(h.exited(1) == [.start(4, key: "a", count: 7)])
        #expect(h.exited(4) == [])
        h.endWhenIdle()
        #expect(h.queue.stats == CommandQueueStats(started: 2, restarted: 1, notRun: 2))
    }

    @Test("restart: other keys are not touched")
    func restartIsPerKey() {
        var h = Harness(jobs: 2, onBusy: .restart)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "b", at: 1) == [.terminate(2), .armKillTimer(at: 5_001)])
        #expect(h.exited(2) == [.start(3, key: "b", count: 1)])
        #expect(h.exited(1) == [])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
    }

    @Test("restart: a line waiting only for a slot is replaced without any signal")
    func restartWaitingForSlot() {
        var h = Harness(jobs: 1, onBusy: .restart)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [])
        #expect(h.submit(3, "b") == [.discard(2, .replaced)])
        #expect(h.exited(1) == [.start(3, key: "b", count: 2)])
        #expect(h.exited(3) == [])
        h.endWhenIdle()
        #expect(h.queue.stats == CommandQueueStats(started: 2, restarted: 0, notRun: 1))
    }

    @Test("restart: the replacement takes its own place in emission order, behind older lines")
    func restartOrder() {
        var h = Harness(jobs: 1, onBusy: .restart)
        #expect(h.submit(1, "x") == [.start(1, key: "x", count: 1)])
        #expect(h.submit(2, "a") == [])
        #expect(h.submit(3, "b") == [])
        #expect(h.submit(4, "a") == [.discard(2, .replaced)])
        #expect(h.exited(1) == [.start(3, key: "b", count: 1)])
        #expect(h.exited(3) == [.start(4, key: "a", count: 2)])
        #expect(h.exited(4) == [])
        h.endWhenIdle()
    }

    // MARK: - --kill-after

    @Test("a SIGTERMed command still running at its deadline gets SIGKILL, once")
    func killAfterEscalates() {
        var h = Harness(onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 50) == [.terminate(1), .armKillTimer(at: 150)])
        #expect(h.queue.reduce(.timerFired(now: 149)) == [])
        #expect(h.queue.reduce(.timerFired(now: 150)) == [.kill(1)])
        #expect(h.queue.nextKillDeadline == nil)
        #expect(h.queue.reduce(.timerFired(now: 300)) == [])
        #expect(h.exited(1) == [.start(2, key: "a", count: 1)])
        #expect(h.exited(2) == [])
        h.endWhenIdle()
    }

    @Test("a command that exits before its deadline is not killed")
    func exitBeforeDeadline() {
        var h = Harness(jobs: 2, onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b", at: 0) == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "a", at: 10) == [.terminate(1), .armKillTimer(at: 110)])
        #expect(h.submit(4, "b", at: 20) == [.terminate(2), .armKillTimer(at: 120)])
        #expect(h.exited(1) == [.start(3, key: "a", count: 1)])
        #expect(h.queue.nextKillDeadline == 120)
        #expect(h.queue.reduce(.timerFired(now: 130)) == [.kill(2)])
        #expect(h.exited(2) == [.start(4, key: "b", count: 1)])
        #expect(h.exited(3) == [])
        #expect(h.exited(4) == [])
        h.endWhenIdle()
    }

    // MARK: - End of input

    @Test("end of input: everything waiting still runs, then finished")
    func endOfInputRunsWaiting() {
        var h = Harness(jobs: 1)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(!h.queue.isFinished)
        #expect(h.exited(1) == [.start(2, key: "b", count: 1)])
        #expect(h.exited(2) == [.finished])
        #expect(h.queue.isFinished)
    }

    @Test("end of input with nothing run is finished at once")
    func emptyInput() {
        var h = Harness()
        h.endWhenIdle()
    }

    // MARK: - Shutdown

    @Test("shutdown: waiting lines are discarded in emission order, running ones get SIGTERM")
    func shutdown() {
        var h = Harness(jobs: 2, killAfter: 100)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "b") == [])
        #expect(h.submit(4, "c") == [])
        #expect(h.submit(5, "a") == [])
        #expect(h.queue.reduce(.shutdown(now: 1_000)) == [
            .discard(3, .shutdown), .discard(4, .shutdown), .discard(5, .shutdown),
            .terminate(1), .armKillTimer(at: 1_100), .terminate(2), .armKillTimer(at: 1_100),
        ])
        // Lines emitted after the signal (pending ones) never run.
        #expect(h.submit(6, "d") == [.discard(6, .shutdown)])
        #expect(h.queue.reduce(.endOfInput) == [])
        // A freed slot starts nothing.
        #expect(h.exited(1) == [])
        #expect(h.queue.reduce(.timerFired(now: 1_100)) == [.kill(2)])
        #expect(h.exited(2) == [.finished])
        #expect(h.queue.stats == CommandQueueStats(started: 2, restarted: 0, notRun: 4))
    }

    @Test("shutdown keeps the deadline of a command restart already SIGTERMed")
    func shutdownAfterRestart() {
        var h = Harness(onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 10) == [.terminate(1), .armKillTimer(at: 110)])
        #expect(h.queue.reduce(.shutdown(now: 50)) == [.discard(2, .shutdown)])
        #expect(h.queue.nextKillDeadline == 110)
        #expect(h.queue.reduce(.timerFired(now: 110)) == [.kill(1)])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exited(1) == [.finished])
    }

    @Test("a second signal: SIGKILL to every command still running, at once")
    func killAll() {
        var h = Harness(jobs: 2, killAfter: 100)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.queue.reduce(.shutdown(now: 0)) == [
            .terminate(1), .armKillTimer(at: 100), .terminate(2), .armKillTimer(at: 100),
        ])
        #expect(h.exited(2) == [])
        #expect(h.queue.reduce(.killAll) == [.kill(1)])
        #expect(h.queue.nextKillDeadline == nil)
        #expect(h.queue.reduce(.timerFired(now: 100)) == [])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exited(1) == [.finished])
    }

    // MARK: - A command that cannot start

    @Test("a start withdrawn after shutdown: never run, its line discarded, counted as not started")
    func withdrawnStart() {
        var h = Harness(jobs: 2)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        // Shutdown before the runner started line 2: it is SIGTERMed as running.
        #expect(h.queue.reduce(.shutdown(now: 0)).filter { $0 == .terminate(2) } == [.terminate(2)])
        #expect(h.queue.reduce(.withdrawn(2)) == [.discard(2, .shutdown)])
        #expect(h.queue.runningCount == 1)
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exited(1) == [.finished])
        #expect(h.queue.stats == CommandQueueStats(started: 1, restarted: 0, notRun: 1))
    }

    @Test("a command that cannot start stops new starts; running commands are left to finish")
    func couldNotStart() {
        var h = Harness(jobs: 2)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.submit(3, "c") == [])
        #expect(h.queue.reduce(.couldNotStart(2)) == [.discard(2, .couldNotStart), .discard(3, .shutdown)])
        #expect(h.queue.isStopped)
        #expect(h.submit(4, "a") == [.discard(4, .shutdown)])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exited(1) == [.finished])
        #expect(h.queue.stats == CommandQueueStats(started: 1, restarted: 0, notRun: 3))
    }

    // MARK: - Process groups

    @Test("restart: the old command's group outlives its shell; the new line waits until a look finds it empty")
    func restartWaitsForTheGroup() {
        var h = Harness(onBusy: .restart, killAfter: 1_000_000_000)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 10) == [.terminate(1), .armKillTimer(at: 1_000_000_010)])
        // The shell is gone, a compiler of its group is not: line 2 waits.
        #expect(h.exitedLeavingGroup(1, at: 100) == [.armGroupCheck(at: 1_000_100)])
        #expect(h.queue.runningCount == 1)
        #expect(h.queue.nextDeadline == 1_000_100)
        #expect(h.fire(at: 1_000_099) == [])
        #expect(h.fire(at: 1_000_100) == [.checkGroup(1)])
        // Not empty yet: the next look comes twice as long after.
        #expect(h.queue.nextDeadline == 3_000_100)
        #expect(h.fire(at: 3_000_100) == [.checkGroup(1)])
        #expect(h.queue.nextDeadline == 7_000_100)
        #expect(h.queue.reduce(.groupEmptied(1)) == [.start(2, key: "a", count: 1)])
        #expect(h.queue.nextDeadline == nil)
        #expect(h.exited(2) == [])
        h.endWhenIdle()
    }

    @Test("looks at a lingering group back off: 1 ms, then twice as long each time, at most 250 ms apart")
    func groupChecksBackOff() {
        var h = Harness(onBusy: .restart, killAfter: 10_000_000_000)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 0) == [.terminate(1), .armKillTimer(at: 10_000_000_000)])
        #expect(h.exitedLeavingGroup(1, at: 0) == [.armGroupCheck(at: 1_000_000)])
        var looks: [Instant] = []
        while looks.count < 10, let due = h.queue.nextDeadline {
            #expect(h.fire(at: due) == [.checkGroup(1)])
            looks.append(due)
        }
        let gaps = zip(looks.dropFirst(), looks).map { ($0 - $1).count / 1_000_000 }
        #expect(looks.first == 1_000_000)
        #expect(gaps == [2, 4, 8, 16, 32, 64, 128, 250, 250])
        #expect(h.queue.reduce(.groupEmptied(1)) == [.start(2, key: "a", count: 1)])
        #expect(h.exited(2) == [])
        h.endWhenIdle()
    }

    @Test("a lingering group that ignores SIGTERM gets SIGKILL at the deadline; then the command is gone")
    func lingeringGroupKilled() {
        var h = Harness(onBusy: .restart, killAfter: 10_000_000)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 0) == [.terminate(1), .armKillTimer(at: 10_000_000)])
        #expect(h.exitedLeavingGroup(1, at: 0) == [.armGroupCheck(at: 1_000_000)])
        #expect(h.fire(at: 1_000_000) == [.checkGroup(1)])
        #expect(h.fire(at: 3_000_000) == [.checkGroup(1)])
        #expect(h.fire(at: 7_000_000) == [.checkGroup(1)])
        // SPEC: gone once its group has been sent SIGKILL.
        #expect(h.fire(at: 10_000_000) == [.kill(1), .start(2, key: "a", count: 1)])
        #expect(h.queue.nextDeadline == nil)
        #expect(h.exited(2) == [])
        h.endWhenIdle()
    }

    @Test("a command pace did not signal is over when its shell exits, whatever its group still runs")
    func unsignalledWaitsForTheShellOnly() {
        var h = Harness()
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a") == [])
        #expect(h.exitedLeavingGroup(1, at: 0) == [.start(2, key: "a", count: 1)])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exitedLeavingGroup(2, at: 0) == [.finished])
    }

    @Test("a command already sent SIGKILL is gone when its shell exits")
    func killedIsGoneAtItsShell() {
        var h = Harness(onBusy: .restart, killAfter: 100)
        #expect(h.submit(1, "a", at: 0) == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "a", at: 0) == [.terminate(1), .armKillTimer(at: 100)])
        #expect(h.fire(at: 100) == [.kill(1)])
        #expect(h.exitedLeavingGroup(1, at: 100) == [.start(2, key: "a", count: 1)])
        #expect(h.exited(2) == [])
        h.endWhenIdle()
    }

    @Test("shutdown: pace ends once every group is empty; a second signal kills a lingering group at once")
    func shutdownWaitsForGroups() {
        var h = Harness(jobs: 2, killAfter: 1_000_000_000)
        #expect(h.submit(1, "a") == [.start(1, key: "a", count: 1)])
        #expect(h.submit(2, "b") == [.start(2, key: "b", count: 1)])
        #expect(h.queue.reduce(.shutdown(now: 0)) == [
            .terminate(1), .armKillTimer(at: 1_000_000_000), .terminate(2), .armKillTimer(at: 1_000_000_000),
        ])
        #expect(h.queue.reduce(.endOfInput) == [])
        #expect(h.exitedLeavingGroup(1, at: 0) == [.armGroupCheck(at: 1_000_000)])
        #expect(h.exitedLeavingGroup(2, at: 0) == [.armGroupCheck(at: 1_000_000)])
        #expect(h.fire(at: 1_000_000) == [.checkGroup(1), .checkGroup(2)])
        #expect(h.queue.reduce(.groupEmptied(2)) == [])
        #expect(!h.queue.isFinished)
        #expect(h.queue.reduce(.killAll) == [.kill(1), .finished])
        #expect(h.queue.nextDeadline == nil)
    }

    // MARK: - A long backlog

    @Test("one key's backlog is kept in place: its storage moves only as it grows, never once per line")
    func backlogInPlace() {
        var h = Harness()
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        var moves = 0
        var address: UnsafeRawPointer?
        for line in 1...50_000 {
            _ = h.submit(EventNumber(line), "a")
            let now = h.queue.waitingStorage(of: "a")?.address
            if now != address { moves += 1 }
            address = now
        }
        #expect(h.queue.waitingCount == 50_000)
        // An array that doubles as it grows moves about log2(50,000) = 16
        // times. A key state copied out of the table and put back would copy
        // its lines on every submit, into a new buffer each time (the old
        // one is still alive when the copy is made): 50,000 moves.
        #expect(moves <= 24)
    }

    @Test("a drained backlog gives its space back while the key still has lines waiting")
    func backlogShrinks() {
        var h = Harness()
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        for line in 1...50_000 { _ = h.submit(EventNumber(line), "a") }
        for line in 0..<49_990 {
            #expect(h.exited(EventNumber(line)) == [.start(EventNumber(line + 1), key: "a", count: 1)])
        }
        #expect(h.queue.waitingCount == 10)
        // The peak needed 50,000 slots; what is kept is bounded by what
        // waits (Storage/FIFO: at most 64 KiB past four times that).
        #expect((h.queue.waitingStorage(of: "a")?.capacity ?? .max) < 4_096)
    }

    @Test("a dictionary that emptied is rebuilt smaller; a full or small one is left alone")
    func dictionaryGivesSpaceBack() {
        var table: [Int: Int] = [:]
        for i in 0..<100_000 { table[i] = i }
        let full = table.capacity
        table.releaseSpareCapacity()
        #expect(table.capacity == full)
        for i in 0..<99_000 { table[i] = nil }
        #expect(table.capacity == full)
        table.releaseSpareCapacity()
        #expect(table.capacity < 4 * 1_000)
        #expect(table.count == 1_000 && table[99_500] == 99_500)
        var small: [Int: Int] = [1: 1]
        let smallCapacity = small.capacity
        small.releaseSpareCapacity()
        #expect(small.capacity == smallCapacity)
    }

    @Test("restart while every slot is busy: lines replacing each other leave no trail of stale entries")
    func replacementsWhileSlotsAreBusy() {
        var h = Harness(jobs: 1, onBusy: .restart)
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        #expect(h.submit(1, "b") == [])
        for line in 2...10_000 {
            #expect(h.submit(EventNumber(line), "b") == [.discard(EventNumber(line - 1), .replaced)])
        }
        #expect(h.queue.waitingCount == 1)
        // One live entry (b's line); the stale ones are dropped in rebuilds.
        #expect(h.queue.readyEntries <= 2 * 2 + 64)
        #expect(h.exited(0) == [.start(10_000, key: "b", count: 10_000)])
        #expect(h.exited(10_000) == [])
        h.endWhenIdle()
    }

    // MARK: - A model

    /// Random traffic on few keys and slots, checked against the rules
    /// themselves: one command per key, at most `jobs`, and a start always
    /// takes the earliest waiting line of a free key.
    @Test("random runs keep one per key, --jobs, and earliest-first", arguments: [1, 2, 3])
    func randomRuns(jobs: Int) {
        var seed: UInt64 = UInt64(jobs) &* 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var queue = Queue(jobs: jobs, onBusy: .queue, killAfter: 10)
        var waiting: [(line: EventNumber, key: String)] = []  // model, in emission order
        var running: [EventNumber: String] = [:]
        var line: EventNumber = 0
        for _ in 0..<5_000 {
            let effects: [E]
            if running.isEmpty || next(2) == 0 {
                line += 1
                let key = ["a", "b", "c", "d"][next(4)]
                waiting.append((line, key))
                effects = queue.reduce(.submit(line, key: key, count: 1, now: 0))
            } else {
                let done = running.keys.sorted()[next(running.count)]
                running[done] = nil
                effects = queue.reduce(.exited(done))
            }
            // The model starts, in order, the earliest line of a free key.
            var expected: [E] = []
            while running.count < jobs,
                  let i = waiting.firstIndex(where: { w in !running.values.contains(w.key) }) {
                let w = waiting.remove(at: i)
                running[w.line] = w.key
                expected.append(.start(w.line, key: w.key, count: 1))
            }
            #expect(effects == expected)
            #expect(Set(running.values).count == running.count)
            #expect(queue.runningCount == running.count)
        }
    }
}
