// Count limit (a policer), `--limit N/D`: a bucket of B tokens, full at first,
// refilling at N per D; an event that finds a whole token takes it and goes
// out at once, any other is dropped. SPEC fixes it as the generic cell rate
// algorithm on a theoretical arrival time A, exactly (see CellRate): an event
// at t passes iff A is none or t >= A - (B - 1) * I, and then A becomes
// max(A, t) + I; a dropped event leaves A as it was.
//
// The bucket is full again at ceil(A): from then on the key behaves as a new
// one, so firing the key's timer there forgets A, the way ThrottleFirst's
// timer closes its window. It emits nothing, and an event after A finds the
// bucket full without it, so the runtime fires it late, when it wants the
// key's memory (`timersOnlyForget`): with a steady set of keys, never. So the
// timer is set when the bucket starts refilling and the lines that pass
// after that leave it where it is; one that fires before the bucket is full
// is set again for the A of then. (Moved with every line that passed, it
// cost a timer update a line: a keyed `--limit 10/1s` took 544 instructions
// a line, now 502.) With N = 1 and B = 1, A is the last emission's t + D and
// this is ThrottleFirst exactly.

package struct Limit<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// The bucket is full (no A): the next event passes.
        case full
        /// The bucket is refilling; `arrival` is A.
        case refilling(arrival: ExactInstant)
    }

    package let rate: CellRate

    package init(rate: CellRate) {
        self.rate = rate
    }

    package var initialState: State { .full }

    /// The timer only says the bucket is full: an event after A passes and
    /// sets A from its own time, as a new key's first event does.
    package static var timersOnlyForget: Bool { true }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.full, .event(event, t)):
            let arrival = rate.taking(at: t, from: nil)
            state = .refilling(arrival: arrival)
            return Effects(emit: event, schedule: arrival.instant)

        case let (.refilling(arrival), .event(event, t)):
            guard rate.hasToken(at: t, arrival: arrival) else { return Effects(discarded: event) }
            // The timer stays where it is, at an earlier A (see above).
            state = .refilling(arrival: rate.taking(at: t, from: arrival))
            return Effects(emit: event)

        case let (.refilling(arrival), .timerFired(due)):
            if arrival.ceiling <= Int128(due.nanoseconds) {
                state = .full
                return .becameIdle
            }
            // Lines passed since the timer was set: the bucket is full at
            // the later A, and the timer is set again there. Only an A past
            // the last representable instant (its timer pinned there) is
            // not full by then: the key then stays as it is, unscheduled.
            let full = arrival.instant
            return full > due ? Effects(schedule: full) : .none

        case (.full, .timerFired):
            preconditionFailure("Limit: timer fired in state full")
        }
    }

    /// When the next token comes: the earliest instant an event finds one.
    package func reopening(in state: State) -> Instant? {
        switch state {
        case .full: return nil
        case let .refilling(arrival): return rate.subtractingTolerance(arrival).instant
        }
    }
}
