// The reference model's own tests: cases worked out by hand from SPEC, the
// arithmetic in the comments.

import PaceCore
import PaceTesting
import Testing

/// Hand-worked cases, so the model does not merely agree with the Scheduler
/// on a shared misreading of SPEC.
@Suite struct ReferenceModelTests {
    let ms: Nanoseconds = 1_000_000

    func events(_ list: [(Instant, String)], key: String = "") -> [ReferenceEvent] {
        list.map { ReferenceEvent(time: $0.0, key: key, line: $0.1) }
    }

    @Test func readmeExample() {
        let input = events([(0, "s"), (0 + 90 * ms, "sw"), (0 + 170 * ms, "swi"), (0 + 260 * ms, "swift")])
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 300 * ms, maxWait: nil), keyed: false)
            == [Emitted(time: 0 + 560 * ms, "swift")])
    }

    @Test func silenceOfExactlyDIsSilence() {
        let input = events([(0, "a"), (3, "b"), (6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 3, maxWait: nil), keyed: false)
            == [Emitted(time: 3, "a"), Emitted(time: 6, "b"), Emitted(time: 9, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .leading(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleFirst(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "c")])
    }

    @Test func leadingTrailingEmitsABurstsFirstAndLast() {
        // D = 3: a burst a, b, c (each less than 3 after the one before)
        // ends at 2 + 3 = 5, where c goes out; d at 5 starts a burst of
        // one; e, 3 after d, another, and f, 1 after e, is its last (at 9).
        let input = events([(0, "a"), (1, "b"), (2, "c"), (5, "d"), (8, "e"), (9, "f")])
        let (emitted, busy) = ReferenceModel.run(input, policy: .leadingTrailing(window: 3), keyed: false)
        #expect(emitted.map { "\(input[$0.event].line)@\($0.time)" } == ["a@0", "c@5", "d@5", "e@8", "f@12"])
        #expect(busy == [.init(key: "", start: 0, end: 5), .init(key: "", start: 5, end: 8), .init(key: "", start: 8, end: 12)])
    }

    @Test func maxWaitInAnEndlessBurst() {
        let input = events((0..<10).map { (Instant($0), "e\($0)") })
        #expect(ReferenceModel.emissions(of: input, policy: .debounce(window: 3, maxWait: 4), keyed: false)
            == [Emitted(time: 4, "e3"), Emitted(time: 8, "e7"), Emitted(time: 12, "e9")])
    }

    @Test func throttleLastOpensItsWindowAtTheTrailingEmission() {
        let input = events([(0, "a"), (1, "b"), (3, "c"), (4, "d")])
        // a at 0; b waits for the end at 3, opening [3, 6); c at 3 comes
        // after that timer, so it waits in the new window, replaced by d.
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 3, "b"), Emitted(time: 6, "d")])
    }

    @Test func outputOrderAcrossKeys() {
        // Key x's window ends at 3 holding x2 (event 3); key y's ends at 3
        // holding y2 (event 2): y2 first, as it came first in the input.
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 0, key: "y", line: "y1"),
            ReferenceEvent(time: 1, key: "y", line: "y2"),
            ReferenceEvent(time: 2, key: "x", line: "x2"),
        ]
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: true)
            == [Emitted(time: 0, "x1"), Emitted(time: 0, "y1"), Emitted(time: 3, "y2"), Emitted(time: 3, "x2")])
        #expect(ReferenceModel.emissions(of: input, policy: .throttleLast(window: 3), keyed: false)
            == [Emitted(time: 0, "x1"), Emitted(time: 3, "x2")])
    }

    @Test func limitTakesTokensExactly() {
        // 3 per 10 ns, bucket of 3: I = 10/3 ns, (B - 1) * I = 20/3 ns.
        // Three at 0 empty the bucket (A = 10); the next token comes at
        // A - 20/3 = 10/3, so d at 0 is dropped and e at 4 passes
        // (A = 40/3). The next comes at 20/3: f at 6 is dropped, g at 7
        // passes (A = 50/3), and h at exactly 10 too. (Rounding I to 3 ns
        // would pass f; to 4 ns, drop g.)
        let input = events([(0, "a"), (0, "b"), (0, "c"), (0, "d"), (4, "e"), (6, "f"), (7, "g"), (10, "h")])
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 3, period: 10, burst: 3), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 0, "b"), Emitted(time: 0, "c"), Emitted(time: 4, "e"),
                Emitted(time: 7, "g"), Emitted(time: 10, "h")])
        // Bucket of 1: one at 0 (A = 10/3), the next from 10/3 on: e at 4
        // (A = 22/3), then from 22/3: g at 7 is early, h at 10 passes.
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 3, period: 10, burst: 1), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 4, "e"), Emitted(time: 10, "h")])
    }

    @Test func limitOneIsThrottle() {
        let input = events([(0, "a"), (1, "b"), (3, "c"), (4, "d"), (6, "e"), (9, "f")])
        #expect(ReferenceModel.emissions(of: input, policy: .limit(count: 1, period: 3, burst: 1), keyed: false)
            == ReferenceModel.emissions(of: input, policy: .throttleFirst(window: 3), keyed: false))
    }

    @Test func rateDelaysToTheNextToken() {
        // 3 per 10 ns, bucket of 1: four at 0 go out at 0, ceil(10/3) = 4,
        // ceil(20/3) = 7 and 10; one at 11 waits for 40/3, so 14.
        let input = events([(0, "a"), (0, "b"), (0, "c"), (0, "d"), (11, "e")])
        #expect(ReferenceModel.emissions(of: input, policy: .rate(count: 3, period: 10, burst: 1), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 4, "b"), Emitted(time: 7, "c"), Emitted(time: 10, "d"),
                Emitted(time: 14, "e")])
        // Bucket of 2: two at once, then one every 10/3 from 10/3.
        #expect(ReferenceModel.emissions(of: input, policy: .rate(count: 3, period: 10, burst: 2), keyed: false)
            == [Emitted(time: 0, "a"), Emitted(time: 0, "b"), Emitted(time: 4, "c"), Emitted(time: 7, "d"),
                Emitted(time: 11, "e")])
    }

    @Test func rateBacklogsOfInterleavedKeys() {
        // 1 per 2 ns each; x's backlog goes out at 0, 2, 4, y's at 1, 3;
        // at 2 and 4 only x, in input order with y between.
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 0, key: "x", line: "x2"),
            ReferenceEvent(time: 1, key: "y", line: "y1"),
            ReferenceEvent(time: 1, key: "x", line: "x3"),
            ReferenceEvent(time: 1, key: "y", line: "y2"),
        ]
        let (emitted, busy) = ReferenceModel.run(input, policy: .rate(count: 1, period: 2, burst: 1), keyed: true)
        #expect(emitted.map { "\(input[$0.event].line)@\($0.time)" } == ["x1@0", "y1@1", "x2@2", "y2@3", "x3@4"])
        // x's bucket is full again at 6 (A = 4 + 2), y's at 5.
        #expect(busy == [.init(key: "x", start: 0, end: 6), .init(key: "y", start: 1, end: 5)])
    }

    @Test func busyStretches() {
        let input = [
            ReferenceEvent(time: 0, key: "x", line: "x1"),
            ReferenceEvent(time: 1, key: "x", line: "x2"),
            ReferenceEvent(time: 5, key: "y", line: "y1"),
        ]
        let (_, busy) = ReferenceModel.run(input, policy: .throttleLast(window: 3), keyed: true)
        // x: [0, 3) emitting x1, then [3, 6) after x2 went out at 3.
        #expect(busy == [.init(key: "x", start: 0, end: 6), .init(key: "y", start: 5, end: 8)])
        #expect(ReferenceModel.keysHeld(at: 5, busy: busy) == 2)
        #expect(ReferenceModel.keysHeld(at: 6, busy: busy) == 1)
        #expect(ReferenceModel.keysHeld(at: 8, busy: busy) == 0)
    }
}
