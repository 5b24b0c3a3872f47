// `--resolve-after` with `--exec`: resolved and exempt lines are never
// discarded by `--on-busy`; they wait behind their key's command (SPEC
// Episodes). On the pure CommandQueue, effects asserted whole.

@testable import PaceCore
import Testing

private typealias E = CommandEffect<String>

@Suite("CommandQueue with episodes")
struct EpisodeCommandQueueTests {
    private func submit(_ queue: inout CommandQueue<String>, _ line: EventNumber, origin: LineOrigin = .policy,
                        at now: Instant = 0) -> [E] {
        queue.reduce(.submit(line, key: "a", count: 1, now: now, origin: origin))
    }

    @Test("drop: a resolved line waits behind the running command; a plain one is still dropped")
    func dropKeepsTheResolvedLine() {
        var queue = CommandQueue<String>(jobs: 1, onBusy: .drop, killAfter: 100)
        #expect(submit(&queue, 1) == [.start(1, key: "a", count: 1)])
        #expect(submit(&queue, 2, origin: .resolved) == [])
        #expect(submit(&queue, 3) == [.discard(3, .busy)])
        #expect(queue.reduce(.exited(1)) == [.start(2, key: "a", count: 1)])
        #expect(queue.reduce(.exited(2)) == [])
        #expect(queue.reduce(.endOfInput) == [.finished])
    }

    @Test("drop: a resolved line carries what its key owes for the lines dropped before it")
    func resolvedLineTakesWhatIsOwed() {
        var queue = CommandQueue<String>(jobs: 1, onBusy: .drop, killAfter: 100)
        #expect(submit(&queue, 1) == [.start(1, key: "a", count: 1)])
        #expect(submit(&queue, 2) == [.discard(2, .busy)])
        #expect(submit(&queue, 3, origin: .resolved) == [])
        #expect(queue.reduce(.exited(1)) == [.start(3, key: "a", count: 2)])
        #expect(queue.reduce(.exited(3)) == [])
        #expect(queue.reduce(.endOfInput) == [.finished])
    }

    @Test("restart: a resolved line signals nothing and is not replaced by a later line")
    func restartKeepsTheResolvedLine() {
        var queue = CommandQueue<String>(jobs: 1, onBusy: .restart, killAfter: 100)
        #expect(submit(&queue, 1) == [.start(1, key: "a", count: 1)])
        #expect(submit(&queue, 2, origin: .resolved, at: 10) == [])
        #expect(submit(&queue, 3, at: 20) == [.terminate(1), .armKillTimer(at: 120)])
        #expect(queue.reduce(.exited(1)) == [.start(2, key: "a", count: 1)])
        #expect(queue.reduce(.exited(2)) == [.start(3, key: "a", count: 1)])
        #expect(queue.reduce(.exited(3)) == [])
        #expect(queue.reduce(.endOfInput) == [.finished])
    }

    @Test("restart: a waiting line replaced in front of a resolved one leaves the key ready to start it")
    func restartInFrontOfAResolvedLineKeepsTheKeyReady() {
        // One job, held by a; c waits with a line, then its resolved copy;
        // c's next line replaces the first and waits behind the copy.
        var queue = CommandQueue<String>(jobs: 1, onBusy: .restart, killAfter: 100)
        #expect(queue.reduce(.submit(1, key: "a", count: 1, now: 0, origin: .policy)) == [.start(1, key: "a", count: 1)])
        #expect(queue.reduce(.submit(2, key: "c", count: 1, now: 1, origin: .policy)) == [])
        #expect(queue.reduce(.submit(3, key: "c", count: 1, now: 2, origin: .resolved)) == [])
        #expect(queue.reduce(.submit(4, key: "c", count: 1, now: 3, origin: .policy)) == [.discard(2, .replaced)])
        #expect(queue.reduce(.exited(1)) == [.start(3, key: "c", count: 1)])
        #expect(queue.reduce(.exited(3)) == [.start(4, key: "c", count: 2)])
        #expect(queue.reduce(.endOfInput) == [])
        #expect(queue.reduce(.exited(4)) == [.finished])
    }
}
