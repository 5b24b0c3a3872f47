// `--throttle-last D`: an event goes out at once when no window is open and
// opens [t, t + D); inside a window only the latest event is remembered, and
// when the window ends at E it goes out at E and opens [E, E + D). Marble
// tests for what SPEC draws, then the reducer's state and effects value by
// value.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct ThrottleLastTests {
    let throttle = ThrottleLast<EventNumber>(window: 3.ticks)

    // MARK: - Ties at exactly D

    @Test func anEmptyWindowClosesBeforeAnEventAtItsEnd() {
        // Nothing was pending at 3, so no window is open when b arrives: b
        // goes out at once.
        expectMarbles(throttle,
                      input:  "a--b|",
                      output: "a--b")
    }

    @Test func anEventAtTheWindowsEndWaitsInTheNextWindow() {
        // b goes out at 3 and opens [3, 6); c at 3 comes after that timer,
        // so it is the latest of the new window, out at 6.
        expectMarbles(throttle,
                      input:  "ab-c|",
                      output: "a--b--c")
    }

    // MARK: - Bursts

    @Test func aSteadyStreamGivesOneLinePerDAtTheWindowsEnds() {
        // Each trailing emission opens the next window: lines at 0, 3, 6, ...
        expectMarbles(throttle,
                      input:  "abcdefghijkl|",
                      output: "a--c--f--i--l")
    }

    @Test func eventsAtOneInstantKeepTheFirstAndTheLast() {
        expectMarbles(throttle,
                      input:  "[abc]|",
                      output: "a    --c")
    }

    @Test func aBurstEndsWithAnEmptyWindow() {
        // d goes out at 6; [6, 9) stays empty and closes, so e at 11 goes out
        // at once.
        expectMarbles(throttle,
                      input:  "abcd-------e|",
                      output: "a--c--d----e")
    }

    // MARK: - End of input

    @Test func endOfInputReleasesThePendingEventAtTheWindowsEnd() {
        expectMarbles(throttle,
                      input:  "ab|",
                      output: "a--b")
        expectMarbles(throttle,
                      input:  "abc|",
                      output: "a--c")
    }

    @Test func liveEndEmitsThePendingEventAtOnce() {
        var run = TestClock(policy: throttle)
        run.send("a", at: 0)
        run.send("b", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: 0, "a"), Emitted(time: tick(2), "b")])
        #expect(run.isQuiet)
    }

    // MARK: - Keys

    @Test func keysHaveTheirOwnWindows() {
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "abAB|",
                      output: "ab-AB")
        // Unkeyed, A goes out at 3 and B, at 3 too, waits for the next window.
        expectMarbles(throttle,
                      input:  "abAB|",
                      output: "a--A--B")
    }

    @Test func emissionsAtOneInstantAcrossKeysAreInInputOrder() {
        // Both windows end at 3. Key a's window opened first, but b's pending
        // B came before a's pending A in the input, so B goes first.
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "[ab]BA|",
                      output: "[ab]--[BA]")
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "[ab]AB|",
                      output: "[ab]--[AB]")
    }

    @Test func aWindowReopenedByATrailingEmissionKeepsTheKey() {
        var clock = TestClock(policy: throttle, keyed: true)
        clock.send("x1", key: "x")
        clock.advance(to: tick(1))
        clock.send("x2", key: "x")
        clock.send("y1", key: "y")
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(3))
        #expect(clock.takeEmissions() == [Emitted(time: 0, "x1"), Emitted(time: tick(1), "y1"), Emitted(time: tick(3), "x2")])
        // x2 opened [3, 6) for x; y's window ends at 4.
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(4))
        #expect(clock.heldKeys == 1)
        clock.advance(to: tick(5))
        #expect(clock.heldKeys == 1)
        clock.advance(to: tick(6))
        #expect(clock.heldKeys == 0)
        #expect(clock.isQuiet)
        #expect(clock.takeEmissions() == [])
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstEventIsEmittedAndOpensAWindow() {
        var state = throttle.initialState
        #expect(state == .idle)
        #expect(throttle.reduce(into: &state, .event(1, at: 100)) == Effects(emit: 1, schedule: 100 + 3.ticks))
        #expect(state == .window(end: 100 + 3.ticks, latest: nil))
    }

    @Test func reducerEventsInsideTheWindowReplaceEachOther() {
        let policy = ThrottleLast<EventNumber>(window: 30)
        var state = ThrottleLast<EventNumber>.State.window(end: 130, latest: nil)
        #expect(policy.reduce(into: &state, .event(2, at: 110)) == Effects(hold: true))
        #expect(state == .window(end: 130, latest: 2))
        #expect(policy.reduce(into: &state, .event(3, at: 129)) == Effects(discarded: 2, hold: true))
        #expect(state == .window(end: 130, latest: 3))
    }

    @Test func reducerWindowEndEmitsTheLatestAndOpensTheNextWindowThere() {
        let policy = ThrottleLast<EventNumber>(window: 30)
        var state = ThrottleLast<EventNumber>.State.window(end: 130, latest: 3)
        #expect(policy.reduce(into: &state, .timerFired(at: 130)) == Effects(emit: 3, schedule: 160))
        #expect(state == .window(end: 160, latest: nil))
        #expect(policy.reduce(into: &state, .timerFired(at: 160)) == Effects(idle: true))
        #expect(state == .idle)
    }

    @Test func reducerOnItsOwnTakesAnEventAtAnEmptyWindowsEnd() {
        let policy = ThrottleLast<EventNumber>(window: 30)
        var state = ThrottleLast<EventNumber>.State.window(end: 130, latest: nil)
        #expect(policy.reduce(into: &state, .event(4, at: 130)) == Effects(emit: 4, schedule: 160))
        #expect(state == .window(end: 160, latest: nil))
    }
}
