// CommandQueue, rule by rule of SPEC's Commands section, on plain values: no
// process, no clock (instants are given with each action). Every reduce's
// effects are asserted whole, and each test ends by checking that input can
// end with nothing left running, waiting or armed. Here: one command per key,
// `--jobs`, `--on-busy` and a model; how commands end is
// CommandQueueShutdownTests' and CommandQueueProcessGroupTests', a long
// backlog CommandQueueBacklogTests'.

@testable import PaceCore
import Testing

typealias Queue = CommandQueue<String>
private typealias E = CommandEffect<String>

/// A queue under test, with shorthands for its actions.
struct Harness {
    /// Its actions' effects. (The file's `E` stays private: another file of
    /// the target has an `E` of its own.)
    typealias E = CommandEffect<String>

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
