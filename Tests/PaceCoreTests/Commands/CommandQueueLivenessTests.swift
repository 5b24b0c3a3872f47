// CommandQueue over random sequences of lines (of every origin), exits (a
// signalled command's group lingering or not), timers and a shutdown, for
// every `--on-busy` and 1 to 3 jobs: whatever happens, a free
// slot never sits beside a free key with a line waiting, every line is
// started or discarded exactly once, and once input ends and the commands
// exit, the queue finishes. b820ebd's stranded key (a line replaced in front
// of a resolved one) is one such sequence; this looks for the others.

@testable import PaceCore
import PaceTesting
import Testing

@Suite("CommandQueue, random sequences")
struct CommandQueueLivenessTests {
    @Test("no stranded key, every line started or discarded once, and the queue finishes",
          arguments: OnBusy.allCases)
    func randomSequences(onBusy: OnBusy) {
        var rng = SplitMix64(seed: 25)
        for round in 0..<600 {
            let jobs = 1 + rng.below(3)
            var queue = CommandQueue<Int>(jobs: jobs, onBusy: onBusy, killAfter: 50)
            var running: [EventNumber: Int] = [:]
            /// Sent SIGTERM (restart, shutdown); lingering: its shell exited,
            /// its group not yet empty.
            var terminated: Set<EventNumber> = []
            var lingering: Set<EventNumber> = []
            var killed: Set<EventNumber> = []
            var accounted: [EventNumber: Int] = [:]
            var submitted = 0
            var finished = 0
            var now: Instant = 0
            var line: EventNumber = 0
            func apply(_ effects: [CommandEffect<Int>]) {
                for effect in effects {
                    switch effect {
                    case let .start(number, key, _):
                        running[number] = key
                        accounted[number, default: 0] += 1
                    case let .discard(number, _): accounted[number, default: 0] += 1
                    case let .terminate(number): terminated.insert(number)
                    // SIGKILL: a lingering group is gone; a shell still
                    // running is waited for, its group not looked at.
                    case let .kill(number):
                        killed.insert(number)
                        lingering.remove(number)
                    case .finished: finished += 1
                    default: break
                    }
                }
            }
            /// A free slot and a free key with a line waiting: stranded.
            func stranded() -> Bool {
                guard running.count + lingering.count < jobs, !queue.isStopped else { return false }
                return queue.keys.contains { $0.value.running == nil && !$0.value.waiting.isEmpty }
            }
            for _ in 0..<(5 + rng.below(40)) {
                now = now.saturatingAdd(Nanoseconds(1 + Int64(rng.below(20))))
                if !running.isEmpty && rng.below(3) == 0 {
                    let number = running.keys.sorted()[rng.below(running.count)]
                    running[number] = nil
                    let remains = terminated.contains(number) && !killed.contains(number) && rng.below(2) == 0
                    if remains { lingering.insert(number) }
                    apply(queue.reduce(.exited(number, groupRemains: remains, now: now)))
                } else if !lingering.isEmpty && rng.below(3) == 0 {
                    let number = lingering.sorted()[rng.below(lingering.count)]
                    lingering.remove(number)
                    apply(queue.reduce(.groupEmptied(number)))
                } else if rng.below(40) == 0 {
                    apply(queue.reduce(.shutdown(now: now)))
                } else if rng.below(8) == 0 {
                    apply(queue.reduce(.timerFired(now: now)))
                } else {
                    line += 1
                    submitted += 1
                    let origins: [LineOrigin] = [.policy, .policy, .policy, .policy, .resolved, .outsidePolicy]
                    apply(queue.reduce(.submit(line, key: rng.below(4), count: 1, now: now,
                                               origin: origins[rng.below(origins.count)])))
                }
                if stranded() { Issue.record("round \(round): a free slot beside a waiting free key"); return }
            }
            apply(queue.reduce(.endOfInput))
            // The commands exit one by one, oldest first; the rest start.
            var steps = 0
            while steps < 1_000, let number = running.keys.min() ?? lingering.min() {
                steps += 1
                now = now.saturatingAdd(Nanoseconds(1))
                if lingering.remove(number) != nil {
                    apply(queue.reduce(.groupEmptied(number)))
                } else {
                    running[number] = nil
                    apply(queue.reduce(.exited(number, now: now)))
                }
                if stranded() { Issue.record("round \(round): stranded after end of input"); return }
            }
            #expect(queue.isFinished, "round \(round): not finished, \(queue.waitingCount) waiting")
            #expect(finished == 1, "round \(round): finished \(finished) times")
            #expect(accounted.count == submitted && accounted.values.allSatisfy { $0 == 1 },
                    "round \(round): a line started or discarded other than once")
            if !queue.isFinished { return }
        }
    }
}
