// `--throttle D` (throttle, first): an event goes out at once when no window
// is open and opens one of D; everything inside is dropped, and dropping does
// not move the window. Marble tests for what SPEC draws, then the reducer's
// state and effects value by value.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct ThrottleFirstTests {
    let throttle = ThrottleFirst<EventNumber>(window: 3.ticks)

    // MARK: - Ties at exactly D

    @Test func anEventExactlyAtTheWindowsEndIsEmitted() {
        expectMarbles(throttle,
                      input:  "a--b|",
                      output: "a--b")
    }

    @Test func anEventOneTickBeforeTheEndIsDropped() {
        expectMarbles(throttle,
                      input:  "a-b|",
                      output: "a")
    }

    @Test func droppedEventsDoNotMoveTheWindow() {
        // b at 1 is dropped and leaves the end at 3, so c at 3 goes out
        // (a leading debounce would have dropped it).
        expectMarbles(throttle,
                      input:  "ab-c|",
                      output: "a--c")
    }

    // MARK: - Bursts

    @Test func aSteadyStreamGivesOneLinePerD() {
        expectMarbles(throttle,
                      input:  "abcdefg|",
                      output: "a--d--g")
    }

    @Test func eventsAtOneInstantKeepTheFirst() {
        expectMarbles(throttle,
                      input:  "[abc]--[de]|",
                      output: "a    --d")
    }

    @Test func theWindowStartsAtTheEmissionNotAtTheEndOfTheLast() {
        // c at 4 opens [4, 7): d at 6 is dropped, e at 7 goes out.
        expectMarbles(throttle,
                      input:  "ab--c-de|",
                      output: "a---c--e")
    }

    // MARK: - End of input

    @Test func endOfInputHasNothingPending() {
        let clock = expectMarbles(throttle,
                                  input:  "ab|",
                                  output: "a")
        #expect(clock.isQuiet)
    }

    @Test func liveEndEmitsNothingMore() {
        var run = TestClock(policy: throttle)
        run.send("a", at: 0)
        run.send("b", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: 0, "a")])
        #expect(run.isQuiet)
    }

    // MARK: - Keys

    @Test func keysHaveTheirOwnWindows() {
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "abAB-aB|",
                      output: "ab---aB")
        expectMarbles(throttle,
                      input:  "abAB-aB|",
                      output: "a--B--B")
    }

    @Test func emissionsAtOneInstantAcrossKeysAreInInputOrder() {
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "[bBa]|",
                      output: "[ba] ")
        expectMarbles(throttle, keys: .caseFolded,
                      input:  "[ab]--[BA]|",
                      output: "[ab]--[BA]")
    }

    /// A key whose window is over has lapsed: its timer only forgets, so
    /// nothing fires for it as time passes, and it is forgotten once a new
    /// key would take the count of active keys past its peak (Scheduler,
    /// "Lapsed keys").
    @Test func lapsedKeysAreForgottenWhenANewKeyWouldPassThePeak() {
        var clock = TestClock(policy: throttle, keyed: true)
        clock.send("x1", key: "x")
        clock.advance(to: tick(1))
        clock.send("y1", key: "y")
        clock.advance(to: tick(2))
        clock.send("x2", key: "x")  // dropped; x's window still ends at 3
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(4))
        // Both windows are over (x's at 3, y's at 4): lapsed, still held.
        #expect(clock.heldKeys == 2)
        #expect(clock.nextDeadline == nil)
        #expect(!clock.isQuiet)
        clock.send("x3", key: "x")  // x is back, in its old slot: no new key
        #expect(clock.heldKeys == 2)
        clock.send("z1", key: "z")  // three would pass the peak: y goes
        #expect(clock.heldKeys == 2)
        #expect(clock.stats.peakActiveKeys == 2)
        clock.finish()
        #expect(clock.heldKeys == 0)
        #expect(clock.isQuiet)
        #expect(clock.stats.activeKeys == 0)
        #expect(clock.emissions == [Emitted(time: 0, "x1"), Emitted(time: tick(1), "y1"),
                                    Emitted(time: tick(4), "x3"), Emitted(time: tick(4), "z1")])
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstEventIsEmittedAndOpensAWindow() {
        var state = throttle.initialState
        #expect(state == .idle)
        #expect(throttle.reduce(into: &state, .event(1, at: 100)) == Effects(emit: 1, schedule: 100 + 3.ticks))
        #expect(state == .window(end: 100 + 3.ticks))
    }

    @Test func reducerEventInsideTheWindowIsDroppedAndLeavesIt() {
        var state = ThrottleFirst<EventNumber>.State.window(end: 130)
        #expect(throttle.reduce(into: &state, .event(2, at: 129)) == Effects(discarded: 2))
        #expect(state == .window(end: 130))
    }

    @Test func reducerWindowCloses() {
        var state = ThrottleFirst<EventNumber>.State.window(end: 130)
        #expect(throttle.reduce(into: &state, .timerFired(at: 130)) == Effects(idle: true))
        #expect(state == .idle)
    }

    @Test func reducerOnItsOwnTakesAnEventAtTheWindowsEnd() {
        let policy = ThrottleFirst<EventNumber>(window: 30)
        var state = ThrottleFirst<EventNumber>.State.window(end: 130)
        #expect(policy.reduce(into: &state, .event(3, at: 130)) == Effects(emit: 3, schedule: 160))
        #expect(state == .window(end: 160))
    }
}
