// `--leading D --trailing`: a burst's first event goes out at once, and its
// last (if it is not its first) when the burst ends, D after that last event;
// the window is then closed, so the next event starts a new burst. Marble
// tests for what SPEC says, then the reducer's state and effects value by
// value.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct LeadingTrailingTests {
    let policy = LeadingTrailing<EventNumber>(window: 3.ticks)

    // MARK: - Bursts

    @Test func aBurstOfOneYieldsItOnce() {
        // Its window ends at 3 with nothing pending: no second line.
        let clock = expectMarbles(policy,
                                  input:  "a|",
                                  output: "a")
        #expect(clock.isQuiet)
        expectMarbles(policy,
                      input:  "a---b|",
                      output: "a---b")
    }

    @Test func aLongerBurstYieldsItsFirstAtOnceAndItsLastAtItsEnd() {
        expectMarbles(policy,
                      input:  "abcd|",
                      output: "a-----d")
        // Events at one instant: the first goes out, the last waits.
        expectMarbles(policy,
                      input:  "[abc]|",
                      output: "a  --c")
    }

    @Test func theWindowEndsDAfterTheBurstsLastEvent() {
        // Every event moves the end: b (2) to 5, c (4) to 7, where c goes out.
        expectMarbles(policy,
                      input:  "a-b-c|",
                      output: "a------c")
        // A throttle-last window would not have moved: b out at 3, c at 6.
        expectMarbles(ThrottleLast(window: 3.ticks),
                      input:  "a-b-c|",
                      output: "a--b--c")
    }

    @Test func silenceOfExactlyDCountsAsSilence() {
        // a's window closes at 3, before b at 3 is handled: b starts a burst.
        expectMarbles(policy,
                      input:  "a--b|",
                      output: "a--b")
        expectMarbles(policy,
                      input:  "a-b|",
                      output: "a----b")
    }

    @Test func theManPagesExample() {
        // share/man/man1/pace.1, --trailing, one tick per 100 ms, D = 300 ms.
        let tick: Nanoseconds = 100_000_000
        expectMarbles(LeadingTrailing(window: 3 * tick), tick: tick,
                      input:  "a-b-c------d-e|",
                      output: "a------c---d----e")
        expectMarbles(Leading(window: 3 * tick), tick: tick,
                      input:  "a-b-c------d-e|",
                      output: "a----------d")
    }

    // MARK: - After the trailing line

    @Test func theNextEventAfterTheTrailingLineStartsANewBurst() {
        // b goes out at 4 and closes the window: c at 5 goes out at once,
        // and d, inside c's window, at c's burst's end.
        expectMarbles(policy,
                      input:  "ab---cd|",
                      output: "a---bc---d")
    }

    @Test func anEventAtTheTrailingLinesInstantComesAfterIt() {
        // The timer due at 4 fires first (b), then c at 4 opens a burst and
        // goes out at once; d follows at c's burst's end.
        expectMarbles(policy,
                      input:  "ab--cd|",
                      output: "a---[bc]---d")
    }

    // MARK: - End of input

    @Test func endOfInputReleasesThePendingEventAtTheWindowsEnd() {
        let clock = expectMarbles(policy,
                                  input:  "ab|",
                                  output: "a---b")
        #expect(clock.isQuiet)
    }

    @Test func liveEndEmitsThePendingEventAtOnce() {
        var run = TestClock(policy: policy)
        run.send("a", at: 0)
        run.send("b", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: 0, "a"), Emitted(time: tick(2), "b")])
        #expect(run.isQuiet)
    }

    // MARK: - Keys

    @Test func keysHaveTheirOwnBursts() {
        expectMarbles(policy, keys: .caseFolded,
                      input:  "abAB|",
                      output: "ab---AB")
        // The same stream unkeyed is one burst.
        expectMarbles(policy,
                      input:  "abAB|",
                      output: "a-----B")
    }

    @Test func trailingLinesAtOneInstantAcrossKeysAreInInputOrder() {
        expectMarbles(policy, keys: .caseFolded,
                      input:  "[ab][BA]|",
                      output: "[ab]---[BA]")
    }

    /// The timer emits, so it fires on time and the key is forgotten when
    /// its burst ends (not late, as with `--leading` alone).
    @Test func keysAreForgottenWhenTheirBurstsEnd() {
        var clock = TestClock(policy: policy, keyed: true)
        clock.send("x1", key: "x")
        clock.advance(to: tick(1))
        clock.send("y1", key: "y")
        clock.send("y2", key: "y")
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(3))
        #expect(clock.heldKeys == 1)  // x's burst of one ended at 3
        clock.advance(to: tick(4))
        #expect(clock.heldKeys == 0)
        #expect(clock.takeEmissions() == [Emitted(time: 0, "x1"), Emitted(time: tick(1), "y1"), Emitted(time: tick(4), "y2")])
        #expect(clock.isQuiet)
        // A forgotten key starts afresh: its next event goes out at once.
        clock.send("x2", key: "x")
        clock.finish()
        #expect(clock.takeEmissions() == [Emitted(time: tick(4), "x2")])
        #expect(clock.heldKeys == 0)
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstEventIsEmittedAndOpensAWindow() {
        var state = policy.initialState
        #expect(state == .idle)
        #expect(policy.reduce(into: &state, .event(1, at: 100)) == Effects(emit: 1, schedule: 100 + 3.ticks))
        #expect(state == .window(end: 100 + 3.ticks, pending: nil))
    }

    @Test func reducerEventsInsideTheWindowBecomePendingAndMoveIt() {
        let policy = LeadingTrailing<EventNumber>(window: 30)
        var state = LeadingTrailing<EventNumber>.State.window(end: 130, pending: nil)
        #expect(policy.reduce(into: &state, .event(2, at: 120)) == Effects(schedule: 150, hold: true))
        #expect(state == .window(end: 150, pending: 2))
        #expect(policy.reduce(into: &state, .event(3, at: 140)) == Effects(schedule: 170, discarded: 2, hold: true))
        #expect(state == .window(end: 170, pending: 3))
    }

    @Test func reducerWindowEndEmitsThePendingEventAndCloses() {
        var state = LeadingTrailing<EventNumber>.State.window(end: 170, pending: 3)
        #expect(policy.reduce(into: &state, .timerFired(at: 170)) == Effects(emit: 3, idle: true))
        #expect(state == .idle)
    }

    @Test func reducerWindowEndWithNothingPendingCloses() {
        var state = LeadingTrailing<EventNumber>.State.window(end: 150, pending: nil)
        #expect(policy.reduce(into: &state, .timerFired(at: 150)) == Effects(idle: true))
        #expect(state == .idle)
    }

    @Test func reducerOnItsOwnTakesAnEventAtTheWindowsEnd() {
        // Without a scheduler firing the timer first, an event at the end of
        // a window holding nothing still opens a new burst.
        let policy = LeadingTrailing<EventNumber>(window: 30)
        var state = LeadingTrailing<EventNumber>.State.window(end: 130, pending: nil)
        #expect(policy.reduce(into: &state, .event(4, at: 130)) == Effects(emit: 4, schedule: 160))
        #expect(state == .window(end: 160, pending: nil))
    }

    @Test func theTimerIsNotOnlyForForgetting() {
        // It emits: fired late, a trailing line would go out late.
        #expect(!LeadingTrailing<EventNumber>.timersOnlyForget)
    }

    @Test func reducerWindowEndSaturatesAtTheEndOfTime() {
        var state = policy.initialState
        #expect(policy.reduce(into: &state, .event(1, at: .max - 1)) == Effects(emit: 1, schedule: .max))
    }
}
