// `--batch N` with `--debounce` (and `--max-wait`) and `--throttle-last`: an
// event that would replace the pending one joins it, up to N pending
// together; they go out at once, in input order, at the policy's emission
// time, or at once when the N-th arrives (the policy then goes on as if its
// timer had fired). Marble tests of what SPEC says, each with the batches'
// shape (`batchPlaces`: index/size) and `--stats`' counters; then SPEC's
// output order across keys; then the reference model's batches, worked by
// hand.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct BatchDebounceTests {
    let debounce = BatchDebounce<EventNumber>(window: 3.ticks, limit: 3)

    @Test func aBurstGoesOutWholeOnceQuiet() {
        let clock = expectMarbles(debounce,
                                  input:  "ab---|",
                                  output: "----[ab]")
        #expect(clock.batchPlaces == [BatchPlace(0, of: 2), BatchPlace(1, of: 2)])
        #expect(clock.stats.batches == 1 && clock.stats.largestBatch == 2 && clock.stats.emitted == 2)
    }

    @Test func theNthPendingEventSendsTheBatchAtOnce() {
        // c makes 3 pending at 2: out then; nothing is pending after, so d
        // starts afresh and goes out alone D after it.
        let clock = expectMarbles(debounce,
                                  input:  "abc-d|",
                                  output: "--[abc]----d")
        #expect(clock.batchPlaces == [BatchPlace(0, of: 3), BatchPlace(1, of: 3), BatchPlace(2, of: 3), BatchPlace(0, of: 1)])
        #expect(clock.stats.batches == 2 && clock.stats.largestBatch == 3)
    }

    @Test func aFullBatchLeavesNoTimerBehind() {
        var clock = TestClock(policy: debounce, keyed: true)
        clock.send("a", key: "k")
        clock.send("b", key: "k")
        clock.send("c", key: "k")
        #expect(clock.takeEmissions() == [Emitted(time: 0, "a"), Emitted(time: 0, "b"), Emitted(time: 0, "c")])
        #expect(clock.isQuiet && clock.heldKeys == 0)
    }

    @Test func maxWaitSendsWhatCameMeanwhile() {
        // The run starting at 0 waits at most 4: a to d at 4 (the timer
        // fires before e at 4), then e starts a new run: out at 4 + 4.
        let clock = expectMarbles(BatchDebounce(window: 3.ticks, maxWait: 4.ticks, limit: 10),
                                  input:  "abcdefg|",
                                  output: "----[abcd]---[efg]")
        #expect(clock.batchPlaces.map(\.size) == [4, 4, 4, 4, 3, 3, 3])
    }

    @Test func aFullBatchStartsMaxWaitAfresh() {
        // [ab] is full at 1; c at 2 is a new run's first event, so its
        // max-wait counts from 2, not 0: [cd] fills at 3.
        expectMarbles(BatchDebounce(window: 3.ticks, maxWait: 4.ticks, limit: 2),
                      input:  "abcd|",
                      output: "-[ab]-[cd]")
    }

    @Test func batchOfOneEmitsEachEventAtOnce() {
        let clock = expectMarbles(BatchDebounce(window: 3.ticks, limit: 1),
                                  input:  "a-[bc]|",
                                  output: "a-[bc]")
        #expect(clock.batchPlaces == [BatchPlace(0, of: 1), BatchPlace(0, of: 1), BatchPlace(0, of: 1)])
    }

    @Test func endOfInputInLiveModeSendsThePendingBatchAtOnce() {
        var clock = TestClock(policy: debounce)
        clock.send("a", at: 0)
        clock.send("b", at: Instant(0) + 1.ticks)
        clock.finishLive(at: Instant(0) + 2.ticks)
        #expect(clock.emissions == [Emitted(time: Instant(0) + 2.ticks, "a"), Emitted(time: Instant(0) + 2.ticks, "b")])
        #expect(clock.batchPlaces == [BatchPlace(0, of: 2), BatchPlace(1, of: 2)])
    }
}

@Suite struct BatchThrottleLastTests {
    let throttle = BatchThrottleLast<EventNumber>(window: 3.ticks, limit: 3)

    @Test func theWindowsEndSendsWhatCameInIt() {
        // a at once, alone (a batch of 1, no batch for --stats); b and c
        // at the window's end, which opens [3, 6), empty.
        let clock = expectMarbles(throttle,
                                  input:  "abc---|",
                                  output: "a--[bc]")
        #expect(clock.batchPlaces == [BatchPlace(0, of: 1), BatchPlace(0, of: 2), BatchPlace(1, of: 2)])
        #expect(clock.stats.batches == 1 && clock.stats.largestBatch == 2)
    }

    @Test func aSteadyStreamGoesOutWholeOncePerWindowOrOnceFull() {
        // Nothing is discarded: [bc] at the first window's end (3), which
        // opens [3, 6); d, e, f fill it at 5, opening [5, 8); g, h at 8.
        expectMarbles(throttle,
                      input:  "abcdefgh|",
                      output: "a--[bc]-[def]--[gh]")
    }

    @Test func theNthPendingEventSendsTheBatchAndOpensANewWindow() {
        // With N = 2: c fills [bc] at 2 and opens [2, 5); e fills [de] at
        // 4 and opens [4, 7), which ends empty.
        let clock = expectMarbles(BatchThrottleLast(window: 3.ticks, limit: 2),
                                  input:  "abcde|",
                                  output: "a-[bc]-[de]")
        #expect(clock.stats.batches == 2 && clock.stats.emitted == 5)
        #expect(clock.isQuiet)
    }

    @Test func aFullBatchMovesTheWindow() {
        // N = 2: [bc] at 2 opens [2, 5), so d at 3 waits for 5 (it would
        // have gone out at 3, the first window's end, had the window stayed).
        expectMarbles(BatchThrottleLast(window: 3.ticks, limit: 2),
                      input:  "abcd|",
                      output: "a-[bc]--d")
    }
}

@Suite struct BatchOutputOrderTests {
    @Test func batchesDueAtOneTimeGoOutInInputOrderOfTheirFirstLines() {
        // Both windows end at 3. x-y-z's batch began with y (line 3), a-b-c's
        // with b (line 4): y and z first, then b and c, each batch whole
        // (one line at a time in input order would be y, b, c, z).
        expectMarbles(BatchThrottleLast(window: 3.ticks, limit: 5), keys: .groups(["abc", "xyz"]),
                      input:  "[ax][yb][cz]|",
                      output: "[ax]--[yzbc]")
    }

    @Test func aBatchThatFillsGoesOutAfterTheLinesAlreadyOutAtItsTime() {
        // a's debounce fires at 4, before z is handled; z then fills x-y-z's
        // batch at 4: after a, although x came before a.
        expectMarbles(BatchDebounce(window: 3.ticks, limit: 3), keys: .groups(["xyz", "ab"]),
                      input:  "xay-z|",
                      output: "----[axyz]")
    }
}

@Suite struct BatchReferenceModelTests {
    func events(_ list: [(Instant, String)], key: String = "") -> [ReferenceEvent] {
        list.map { ReferenceEvent(time: $0.0, key: key, line: $0.1) }
    }

    @Test func debounceBatches() {
        // D = 3, N = 3: a, b, c fill at 2; d alone at 4 + 3; e, f at 10 + 3.
        let input = events([(0, "a"), (1, "b"), (2, "c"), (4, "d"), (10, "e"), (11, "f")])
        let (emitted, busy) = ReferenceModel.run(input, policy: .debounce(window: 3, maxWait: nil), keyed: false, batch: 3)
        #expect(emitted.map { "\(input[$0.event].line)@\($0.time) \($0.batchIndex)/\($0.batchSize)" }
            == ["a@2 0/3", "b@2 1/3", "c@2 2/3", "d@7 0/1", "e@14 0/2", "f@14 1/2"])
        #expect(busy == [.init(key: "", start: 0, end: 2), .init(key: "", start: 4, end: 7), .init(key: "", start: 10, end: 14)])
    }

    @Test func throttleLastBatches() {
        // D = 5, N = 3: a at once; b, c, d fill at 3 and open [3, 8); e at
        // 4 goes out at 8, opening [8, 13); f at 11 at 13.
        let input = events([(0, "a"), (1, "b"), (2, "c"), (3, "d"), (4, "e"), (11, "f")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 5), keyed: false, batch: 3)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 3, "c"), Emitted(time: 3, "d"),
                Emitted(time: 8, "e"), Emitted(time: 13, "f")])
    }
}
