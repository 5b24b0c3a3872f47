// SPEC, Commands: with --exec, an exempt line (outside the policy) is never
// discarded by --on-busy: it waits behind its key's command; and it counts
// 1 (SPEC, --exempt: it owes nothing), so what its key owes waits for the
// key's next line of the policy. On plain values, as CommandQueueTests.

@testable import PaceCore
import Testing

@Suite("A line outside the policy under --on-busy")
struct KeptLinesTests {
    private typealias Queue = CommandQueue<String>

    @Test("drop: a kept line waits behind its key's command instead of being discarded")
    func dropKeeps() {
        var q = Queue(jobs: 1, onBusy: .drop, killAfter: 100)
        #expect(q.reduce(.submit(1, key: "a", count: 1, now: 0)) == [.start(1, key: "a", count: 1)])
        #expect(q.reduce(.submit(2, key: "a", count: 1, now: 0, origin: .outsidePolicy)) == [])
        // A line of the policy is still dropped while the key is busy.
        #expect(q.reduce(.submit(3, key: "a", count: 1, now: 0)) == [.discard(3, .busy)])
        #expect(q.reduce(.exited(1)) == [.start(2, key: "a", count: 1)])
        #expect(q.reduce(.exited(2)) == [])
        #expect(q.reduce(.endOfInput) == [.finished])
        #expect(q.stats == CommandQueueStats(started: 2, restarted: 0, notRun: 1))
    }

    @Test("drop: a kept line counts 1; what its key owes for a dropped line goes to the key's next line")
    func keptLineTakesNothingOwed() {
        var q = Queue(jobs: 1, onBusy: .drop, killAfter: 100)
        #expect(q.reduce(.submit(1, key: "a", count: 1, now: 0)) == [.start(1, key: "a", count: 1)])
        #expect(q.reduce(.submit(2, key: "a", count: 1, now: 0)) == [.discard(2, .busy)])
        #expect(q.reduce(.submit(3, key: "a", count: 1, now: 0, origin: .outsidePolicy)) == [])
        #expect(q.reduce(.exited(1)) == [.start(3, key: "a", count: 1)])
        #expect(q.reduce(.exited(3)) == [])
        #expect(q.reduce(.submit(4, key: "a", count: 1, now: 0)) == [.start(4, key: "a", count: 2)])
        #expect(q.reduce(.exited(4)) == [])
        #expect(q.reduce(.endOfInput) == [.finished])
    }

    @Test("restart: a kept line sends no SIGTERM, and a later line does not replace it")
    func restartKeeps() {
        var q = Queue(jobs: 1, onBusy: .restart, killAfter: 100)
        #expect(q.reduce(.submit(1, key: "a", count: 1, now: 0)) == [.start(1, key: "a", count: 1)])
        #expect(q.reduce(.submit(2, key: "a", count: 1, now: 10, origin: .outsidePolicy)) == [])
        // The newest line restarts the command, but the kept line stays first.
        #expect(q.reduce(.submit(3, key: "a", count: 1, now: 20)) == [.terminate(1), .armKillTimer(at: 120)])
        #expect(q.reduce(.exited(1)) == [.start(2, key: "a", count: 1)])
        #expect(q.reduce(.exited(2)) == [.start(3, key: "a", count: 1)])
        #expect(q.reduce(.exited(3)) == [])
        #expect(q.reduce(.endOfInput) == [.finished])
        #expect(q.stats == CommandQueueStats(started: 3, restarted: 1, notRun: 0))
    }
}
