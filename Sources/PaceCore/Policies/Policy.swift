// The vocabulary every policy shares. A policy is a pure reducer in the spirit
// of The Composable Architecture: it receives an action (an event, or the
// firing of the one timer it owns) and mutates its state, returning effects as
// plain values. It never reads a clock and never does I/O; the Scheduler in
// Runtime/ carries out what it returns.
//
// Effects are a small fixed-size value rather than an array: every policy
// emits at most one line per action and owns at most one timer per key, so
// `Effects` is three optionals and costs no allocation on the per-line path.
// The third, `discarded`, names the event an action throws away (a pending
// event replaced, an incoming one dropped): the runtime ignores it unless
// `--trace` asks why a line vanished.

/// What happens to a policy: an event arrives, or its timer fires.
public enum PolicyAction<Payload: Equatable>: Equatable {
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
public struct Effects<Payload: Equatable>: Equatable {
    /// The line to write now (at the action's time).
    public var emit: Payload?
    /// When to deliver `.timerFired`, replacing any timer in flight; nil
    /// leaves the timer as it is.
    public var schedule: Instant?
    /// The event this action discards for good: the pending one an incoming
    /// event replaced, or the incoming event itself when it is dropped.
    public var discarded: Payload?

    public init(emit: Payload? = nil, schedule: Instant? = nil, discarded: Payload? = nil) {
        self.emit = emit
        self.schedule = schedule
        self.discarded = discarded
    }

    /// Nothing to do.
    public static var none: Effects { Effects() }
}

/// A rate-limiting policy: a pure state machine over one key's events.
public protocol Policy {
    associatedtype Payload: Equatable
    associatedtype State: Equatable

    /// The state of a key nothing has happened to yet.
    var initialState: State { get }

    /// Reacts to one action. Pure: the result depends only on the arguments.
    func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload>

    /// The event the state holds back to emit later, if any. The runtime keeps
    /// that event's bytes and orders same-instant emissions by it.
    func pending(in state: State) -> Payload?

    /// True when the state holds nothing and no window is open, so the key can
    /// be forgotten: a fresh `initialState` would behave the same.
    func isIdle(_ state: State) -> Bool
}

/// The four policies SPEC names, as the command line selects them.
public enum PolicyKind: String, Sendable, CaseIterable {
    case debounce
    case leading
    case throttleFirst = "throttle"
    case throttleLast = "throttle-last"
}
