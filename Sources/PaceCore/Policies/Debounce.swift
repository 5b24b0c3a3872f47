// Trailing debounce: emit the last event of a burst once the window has passed
// in silence. "Sleep first, work after, cancel in flight": every event becomes
// the pending one and moves the deadline, and only the timer emits.
//
// With a max-wait M, the deadline is min(t + D, f + M), f being the time of the
// first event of the pending run, so an endless burst still yields a line
// every M.

package struct Debounce<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// Nothing pending; the timer is not set.
        case idle
        /// `event` waits to be emitted at `deadline`; `runStart` is the time
        /// of the first event that became pending since the last emission.
        case pending(Payload, runStart: Instant, deadline: Instant)
    }

    package let window: Nanoseconds
    package let maxWait: Nanoseconds?

    package init(window: Nanoseconds, maxWait: Nanoseconds? = nil) {
        precondition(window > 0, "Debounce: the window must be positive")
        precondition(maxWait.map { $0 >= window } ?? true, "Debounce: max-wait must be >= the window")
        self.window = window
        self.maxWait = maxWait
    }

    package var initialState: State { .idle }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let deadline = deadline(eventAt: t, runStart: t)
            state = .pending(event, runStart: t, deadline: deadline)
            return Effects(schedule: deadline, hold: true)

        case let (.pending(replaced, runStart, _), .event(event, t)):
            let deadline = deadline(eventAt: t, runStart: runStart)
            state = .pending(event, runStart: runStart, deadline: deadline)
            return Effects(schedule: deadline, discarded: replaced, hold: true)

        case let (.pending(event, _, _), .timerFired):
            state = .idle
            return Effects(emit: event, idle: true)

        case (.idle, .timerFired):
            preconditionFailure("Debounce: timer fired in state idle")
        }
    }

    @inline(__always)
    func deadline(eventAt t: Instant, runStart: Instant) -> Instant {
        let quiet = t.saturatingAdd(window)
        guard let maxWait else { return quiet }
        return min(quiet, runStart.saturatingAdd(maxWait))
    }
}
