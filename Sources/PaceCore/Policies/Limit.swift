// Count limit (a policer), `--limit N/D`: a bucket of B tokens, full at first,
// refilling at N per D; an event that finds a whole token takes it and goes
// out at once, any other is dropped. SPEC fixes it as the generic cell rate
// algorithm on a theoretical arrival time A, exactly (see CellRate): an event
// at t passes iff A is none or t >= A - (B - 1) * I, and then A becomes
// max(A, t) + I; a dropped event leaves A as it was.
//
// The bucket is full again at ceil(A): from then on the key behaves as a new
// one, so the key's timer is kept at that instant and firing it forgets A, the
// way ThrottleFirst's timer closes its window. It emits nothing, and an event
// after A finds the bucket full without it, so the runtime fires it late, when
// it wants the key's memory (`timersOnlyForget`). Every line that passes moves
// the timer on to its new A (the timer heap notes the move in place, where a
// timer left behind fired early and was set again). With N = 1 and B = 1, A
// is the last emission's t + D and this is ThrottleFirst exactly.

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
            let later = rate.taking(at: t, from: arrival)
            state = .refilling(arrival: later)
            return Effects(emit: event, schedule: later.instant)

        case let (.refilling(arrival), .timerFired(due)):
            if arrival.ceiling <= Int128(due.nanoseconds) {
                state = .full
                return .becameIdle
            }
            // The runtime fires the timer at ceil(A), where it was set, so
            // only an A past the last representable instant (its timer
            // pinned there) is not full yet: the key then stays as it is,
            // unscheduled. A timer that fired earlier than A is set again.
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
