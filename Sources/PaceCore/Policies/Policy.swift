// The vocabulary every policy shares. A policy is a pure reducer in the spirit
// of The Composable Architecture: it receives an action (an event, or the
// firing of the one timer it owns) and mutates its state, returning effects as
// plain values. It never reads a clock and never does I/O; the Scheduler in
// Scheduler/ carries out what it returns.
//
// Effects are a small fixed-size value rather than an array: every policy
// emits at most one line per action and owns at most one timer per key, so
// `Effects` costs no allocation on the per-line path. It says everything the
// runtime must do, so the runtime never asks the state again:
// - `emit`: the line to write now (the incoming event, or the oldest held);
// - `schedule`: the key's one timer, replacing any in flight;
// - `hold`: keep the incoming event's bytes, it waits in the key's queue of
//   held events (first in, first out: a timer's emission is its oldest);
// - `discarded`: the event thrown away for good (an incoming one dropped, or
//   the held one a later event replaced);
// - `idle`: the key holds nothing and no window is open, so it can be
//   forgotten (a fresh `initialState` would behave the same);
// - `batch` (`--batch` only): the emission is every event the key holds,
//   oldest first, with the incoming one last when it is held too; `emit`
//   names the first.

/// What happens to a policy: an event arrives, or its timer fires.
package enum PolicyAction<Payload: Equatable>: Equatable {
    /// An event with its time. Events arrive with non-decreasing times.
    case event(Payload, at: Instant)
    /// The policy's timer, set earlier with `Effects.schedule`, is due now.
    /// `at` is the instant it was set for (a delayed emission's time).
    case timerFired(at: Instant)
}

/// What a policy asks the runtime to do after one action.
///
/// A policy owns at most one timer (per key). `schedule` sets it, replacing
/// any timer in flight: that replacement is how a debounce cancels the sleep
/// it started for the previous event. A timer that fires is consumed; it
/// fires again only if the reaction to it schedules again.
package struct Effects<Payload: Equatable>: Equatable {
    /// The line to write now (at the action's time): the incoming event, or
    /// (on a timer) the oldest held one.
    package var emit: Payload?
    /// When to deliver `.timerFired`, replacing any timer in flight; nil
    /// leaves the timer as it is.
    package var schedule: Instant?
    /// The event this action discards for good: the held one an incoming
    /// event replaced, or the incoming event itself when it is dropped.
    package var discarded: Payload?
    /// The incoming event is held: the runtime keeps its bytes until a timer
    /// emits it or a later event replaces it.
    package var hold: Bool
    /// The key is idle after this action: nothing held, no timer, no window.
    package var idle: Bool
    /// `--batch`: the emission is a batch of the key's held events (the
    /// incoming one last, when `hold`), and why it goes out; nil for one
    /// line alone (every policy without `--batch`).
    package var batch: BatchRelease?

    @inline(__always)
    package init(emit: Payload? = nil, schedule: Instant? = nil, discarded: Payload? = nil,
                hold: Bool = false, idle: Bool = false, batch: BatchRelease? = nil) {
        self.emit = emit
        self.schedule = schedule
        self.discarded = discarded
        self.hold = hold
        self.idle = idle
        self.batch = batch
    }

    /// Nothing to do.
    package static var none: Effects { Effects() }

    /// Nothing to do, and the key is idle.
    package static var becameIdle: Effects { Effects(idle: true) }
}

/// The state of a policy that remembers only its window (throttle first, a
/// leading-edge debounce): none open, or one open until `end`. Both save it
/// to `--state` as it is (State/PolicyStates.swift).
package enum OpenWindow: Equatable, Sendable {
    /// No window open: the next event is emitted.
    case idle
    /// A window is open until `end`.
    case window(end: Instant)
}

/// `--batch`: a batch that goes out, its size and why (for `--trace`).
package struct BatchRelease: Equatable, Sendable {
    package enum Why: Equatable, Sendable {
        /// A debounce's quiet time passed.
        case quiet
        /// A debounce's `--max-wait` came first.
        case maxWait
        /// A throttle-last window ended.
        case windowEnd
        /// The event being handled made N pending: out at once, at its time.
        case full
    }

    package var size: Int32
    package var why: Why

    @inline(__always)
    package init(size: Int32, why: Why) {
        self.size = size
        self.why = why
    }
}

/// A rate-limiting policy: a pure state machine over one key's events.
package protocol Policy {
    associatedtype Payload: Equatable
    associatedtype State: Equatable

    /// The state of a key nothing has happened to yet.
    var initialState: State { get }

    /// Reacts to one action. Pure: the result depends only on the arguments.
    func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload>

    /// For `--trace`: the instant from which an event dropped in this state
    /// would pass, when the key's timer does not say it (a count limit's
    /// timer is set for its full bucket, not for its next token).
    func reopening(in state: State) -> Instant?

    /// Live mode, end of input: true when held events still go out at their
    /// due times (a shaper keeps its pace), false when they go out at once.
    static var keepsPaceAfterInput: Bool { get }

    /// True when the policy's timer only ends a window: it emits nothing,
    /// the policy holds nothing, and an event after the timer's instant
    /// finds what it would have found had the timer fired (a fresh window,
    /// a full bucket). The runtime may then fire the timer late, when the
    /// key's memory is wanted (see LapsedKeys.swift).
    static var timersOnlyForget: Bool { get }

    /// `--state`: what of `state` a later run keeps (State/PolicyStates.swift),
    /// pending events left out; nil when nothing is (an idle key).
    func saved(_ state: State) -> SavedState?
    /// `--state`: the state a saved one stands for; nil when it is not this
    /// policy's.
    func restored(_ saved: SavedState) -> State?
    /// `--batch`: its emissions are batches (`Effects.batch`), and an
    /// event that fills one cancels the key's timer when the key goes idle.
    static var batches: Bool { get }
}

extension Policy {
    /// The key's timer says when a dropped event would pass (a window's end).
    @inline(__always)
    package func reopening(in state: State) -> Instant? { nil }

    package static var keepsPaceAfterInput: Bool { false }

    package static var timersOnlyForget: Bool { false }

    package func saved(_ state: State) -> SavedState? { nil }

    package func restored(_ saved: SavedState) -> State? { nil }
    package static var batches: Bool { false }
}
