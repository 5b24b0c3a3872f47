// CommandQueue and the process group of a command pace signalled: the command
// is over only once its group is empty (looked at with a back-off) or has
// been sent SIGKILL; one pace did not signal is over when its shell exits.
// On plain values, with CommandQueueTests' Harness.

@testable import PaceCore
import Testing

extension CommandQueueTests {
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
}
