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
}
