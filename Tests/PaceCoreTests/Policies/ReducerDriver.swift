// A stand-in for the runtime, for a policy that holds several events per key
// (`--rate`), which today's Scheduler cannot yet carry: one state per key,
// one timer per key, timers due at or before an event's time fired first,
// those due at one instant in input order of the event each one holds. It
// keeps no bytes: the payload is the event's index, which names its line.
//
// It exists so that the Rate reducer can be held against the reference model
// on random streams now; once the Scheduler holds a backlog, the randomized
// tests run Rate through it instead and this driver can go.

import PaceCore
import PaceTesting

struct ReducerDriver<P: Policy> where P.Payload == EventNumber {
    let policy: P
    let keyed: Bool
    private var states: [String: P.State] = [:]
    private var dues: [String: Instant] = [:]
    private(set) var emissions: [(time: Instant, event: EventNumber)] = []
    private var count: EventNumber = 0
    /// `--stats`' backlog: events held back at once across keys, counted
    /// as the runtime counts them (one held, one released).
    private(set) var stats = SchedulerStats()

    init(_ policy: P, keyed: Bool) {
        self.policy = policy
        self.keyed = keyed
    }

    /// Keys whose state is held (not idle).
    var heldKeys: Int { states.count }
    var isQuiet: Bool { dues.isEmpty }

    /// The state of one key, for checks (the initial state if none).
    func state(of key: String) -> P.State { states[keyed ? key : ""] ?? policy.initialState }

    /// Fires every timer due at or before `now`, earliest first.
    mutating func advance(to now: Instant?) {
        while let due = dues.values.min(), now == nil || due <= now! {
            let batch = dues.filter { $0.value == due }.keys.sorted {
                (policy.pending(in: states[$0]!) ?? .max) < (policy.pending(in: states[$1]!) ?? .max)
            }
            for key in batch {
                dues[key] = nil
                var state = states[key]!
                let effects = policy.reduce(into: &state, .timerFired(at: due))
                apply(effects, key: key, state: state, at: due)
            }
        }
    }

    /// The event numbered by its input position (0, 1, ...).
    mutating func send(key: String, at t: Instant) {
        advance(to: t)
        let key = keyed ? key : ""
        var state = states[key] ?? policy.initialState
        let effects = policy.reduce(into: &state, .event(count, at: t))
        count += 1
        apply(effects, key: key, state: state, at: t)
    }

    /// Events a state holds back: the whole backlog for Rate, the pending
    /// one for the others.
    private func heldCount(_ state: P.State) -> Int {
        if let rate = policy as? Rate<EventNumber> { return rate.backlog(in: state as! Rate<EventNumber>.State) }
        return policy.pending(in: state) == nil ? 0 : 1
    }

    /// End of input in replay: the clock runs on.
    mutating func finish() { advance(to: nil) }

    private mutating func apply(_ effects: Effects<EventNumber>, key: String, state: P.State, at t: Instant) {
        if let emitted = effects.emit { emissions.append((t, emitted)) }
        let before = states[key].map(heldCount) ?? 0
        let after = heldCount(state)
        if after != before { stats.held(Int64(after - before)) }
        if let due = effects.schedule {
            precondition(due > t, "ReducerDriver: a timer set for now or the past")
            dues[key] = due
        }
        if policy.isIdle(state) {
            states[key] = nil
            dues[key] = nil
        } else {
            states[key] = state
        }
    }
}
