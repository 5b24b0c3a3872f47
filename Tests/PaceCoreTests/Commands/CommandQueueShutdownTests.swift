// CommandQueue, rule by rule of SPEC's Commands section, as commands end:
// `--kill-after`'s SIGKILL, end of input, a shutdown's SIGTERM and its
// discards, a second signal, and a command that cannot start. On plain
// values, with CommandQueueTests' Harness; each test ends with nothing left
// running, waiting or armed.

@testable import PaceCore
import Testing

extension CommandQueueTests {
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
}
