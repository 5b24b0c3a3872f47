// The structures that keep `--stats` and `--count` in bounded memory:
// exact below their bound, within their stated error above it.

import Testing
@testable import PaceCore
import PaceTesting

private func insert(_ set: inout DistinctKeys, _ key: String) -> Bool {
    var key = key
    return key.withUTF8 { set.insert(UnsafeRawBufferPointer($0), hash: hashBytes(UnsafeRawBufferPointer($0))) }
}

private func keyBytes<R>(_ key: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var key = key
    return key.withUTF8 { body(UnsafeRawBufferPointer($0)) }
}

@Suite struct BoundedDistinctKeysTests {
    @Test func exactUpToItsLimitWithRepeats() {
        var set = DistinctKeys(limit: 1_000)
        for round in 0..<3 {
            for i in 0..<1_000 { #expect(insert(&set, "key\(i)") == (round == 0)) }
        }
        // (Read first: the set is noncopyable, and #expect takes copies.)
        let (count, estimated) = (set.count, set.isEstimated)
        #expect(count == 1_000)
        #expect(!estimated)
    }

    @Test func estimatedPastItsLimitWithinThreeStandardErrors() {
        // 0.8125% standard error; 3 of them is 2.44%.
        for n in [5_000, 50_000, 400_000] {
            var set = DistinctKeys(limit: 1_000)
            for i in 0..<n { _ = insert(&set, "host-\(i)") }
            let (count, estimated) = (set.count, set.isEstimated)
            #expect(estimated)
            let error = abs(Double(count - Int64(n))) / Double(n)
            #expect(error < 0.0244, "\(n) keys estimated as \(count)")
        }
    }

    @Test func theEstimateIgnoresRepeats() {
        var set = DistinctKeys(limit: 100)
        for i in 0..<20_000 { _ = insert(&set, "k\(i)") }
        let once = set.count
        for i in 0..<20_000 { #expect(!insert(&set, "k\(i)")) }
        let count = set.count
        #expect(count == once)
    }

    @Test func theEstimateIsShownRoundedWithItsError() {
        #expect(estimateText(2_004_321) == "about 2,000,000 (±0.8%)")
        #expect(estimateText(20_150_000) == "about 20,200,000 (±0.8%)")
        #expect(estimateText(1_234) == "about 1,230 (±0.8%)")
        #expect(groupedDigits(999) == "999")
        #expect(groupedDigits(1_000_000) == "1,000,000")
    }

    @Test func theSchedulerReportsTheEstimate() {
        // ManyKeys' DistinctKeys has SPEC's limit; past a million keys the
        // count becomes an estimate.
        var clock = TestClock(policy: ThrottleFirst<EventNumber>(window: 1), keyed: true)
        for i in 0..<1_000_000 { clock.send("x", key: "k\(i)", at: Instant(nanoseconds: Int64(i) * 10)) }
        #expect(clock.stats.distinctKeys == 1_000_000)
        #expect(!clock.stats.distinctKeysEstimated)
        for i in 1_000_000..<1_100_000 { clock.send("x", key: "k\(i)", at: Instant(nanoseconds: Int64(i) * 10)) }
        #expect(clock.stats.distinctKeysEstimated)
        let error = abs(Double(clock.stats.distinctKeys - 1_100_000)) / 1_100_000
        #expect(error < 0.0244)
    }
}

@Suite struct HeavyHittersTests {
    @Test func exactWhileTheKeysFit() {
        let table = HeavyHitters(capacity: 100)
        for i in 0..<100 {
            for _ in 0...i { keyBytes("k\(i)") { table.entered($0) } }
            for _ in 0..<(i / 2) { keyBytes("k\(i)") { table.emitted($0) } }
        }
        #expect(!table.isSummary)
        let top = table.top(3)
        #expect(top == [KeyCount(key: Array("k99".utf8), eventsIn: 100, emitted: 49),
                        KeyCount(key: Array("k98".utf8), eventsIn: 99, emitted: 49),
                        KeyCount(key: Array("k97".utf8), eventsIn: 98, emitted: 48)])
        #expect(top[0].dropped == 51)
    }

    @Test func linesNeverRunMoveFromEmittedToDropped() {
        let table = HeavyHitters(capacity: 4)
        for _ in 0..<5 { keyBytes("a") { table.entered($0) } }
        for _ in 0..<3 { keyBytes("a") { table.emitted($0) } }
        keyBytes("a") { table.notRun($0, lines: 2) }
        // A key without an entry is ignored; emitted never goes below 0.
        keyBytes("b") { table.notRun($0, lines: 1) }
        #expect(table.top(2) == [KeyCount(key: Array("a".utf8), eventsIn: 5, emitted: 1)])
        keyBytes("a") { table.notRun($0, lines: 5) }
        #expect(table.top(1) == [KeyCount(key: Array("a".utf8), eventsIn: 5, emitted: 0)])
        #expect(table.top(1)[0].dropped == 5)
    }

    @Test func theTableSaysWhenItComesFromTheSummary() {
        let rows = [KeyCount(key: Array("a".utf8), eventsIn: 500, emitted: 100, error: 20),
                    KeyCount(key: Array("bb".utf8), eventsIn: 300, emitted: 50, error: 7)]
        #expect(keyTableText(rows, distinctKeys: 2_004_321, distinctEstimated: true, estimated: true) == """
            pace: stats by key (top 2 of about 2,000,000 (±0.8%) by events in):
            pace: more keys than the 100,000 counted exactly: from a summary, each key's in may be up to ± too high, \
            its emitted and dropped up to ± too low
              key   in  emitted  dropped   ±
              a    500      100      380  20
              bb   300       50      243   7

            """)
        // Exact, as before.
        #expect(keyTableText([KeyCount(key: Array("a".utf8), eventsIn: 5, emitted: 2)], distinctKeys: 1) == """
            pace: stats by key (top 1 of 1 by events in):
              key  in  emitted  dropped
              a     5        2        3

            """)
    }

    @Test func beyondItsCapacityTheHeavyKeysStayWithinTheirError() {
        // 10 heavy keys of 1,000 events each among 200,000 keys seen once,
        // interleaved; a summary of 1,000 entries.
        let table = HeavyHitters(capacity: 1_000)
        var light = 0
        for round in 0..<1_000 {
            for h in 0..<10 { keyBytes("heavy\(h)") { table.entered($0) } }
            for _ in 0..<200 {
                keyBytes("light\(light)") { table.entered($0) }
                light += 1
            }
            if round % 2 == 0 { for h in 0..<10 { keyBytes("heavy\(h)") { table.emitted($0) } } }
        }
        #expect(table.isSummary)
        let top = table.top(10)
        #expect(Set(top.map { String(decoding: $0.key, as: UTF8.self) }) == Set((0..<10).map { "heavy\($0)" }))
        let bound = Int64(210_000 / 1_000)
        for row in top {
            // Each number within its own stated error, which is within N / capacity.
            #expect(row.error <= bound)
            #expect(row.eventsIn >= 1_000 && row.eventsIn - row.error <= 1_000)
            #expect(row.emitted <= 500 && row.emitted + row.error >= 500)
            #expect(row.dropped <= 500 && row.dropped + row.error >= 500)
        }
    }
}

@Suite struct ForgottenCountsTests {
    @Test func aKeyTakesItsCountBackOnce() {
        let counts = ForgottenCounts(capacity: 10)
        keyBytes("a") { counts.remember($0, hash: hashBytes($0), owed: 3) }
        keyBytes("b") { counts.remember($0, hash: hashBytes($0), owed: 4) }
        #expect(keyBytes("a") { counts.take($0, hash: hashBytes($0)) } == 3)
        #expect(keyBytes("a") { counts.take($0, hash: hashBytes($0)) } == 0)
        #expect(keyBytes("c") { counts.take($0, hash: hashBytes($0)) } == 0)
        #expect(counts.count == 1)
        #expect(counts.uncounted == 0)
    }

    @Test func theLeastRecentlySeenAreForgottenFirstAndTheirDiscardsCounted() {
        let counts = ForgottenCounts(capacity: 3)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() {
            keyBytes(key) { counts.remember($0, hash: hashBytes($0), owed: Int64(i + 1)) }
        }
        // a (1) and b (2) were forgotten.
        #expect(counts.uncounted == 3)
        #expect(counts.count == 3)
        for (key, owed) in [("a", 0), ("b", 0), ("c", 3), ("d", 4), ("e", 5)] {
            #expect(keyBytes(key) { counts.take($0, hash: hashBytes($0)) } == Int64(owed))
        }
    }

    @Test func roomIsMadeForCountsKeptElsewhereOldestFirst() {
        let counts = ForgottenCounts(capacity: 3)
        for (i, key) in ["a", "b", "c"].enumerated() {
            keyBytes(key) { counts.remember($0, hash: hashBytes($0), owed: Int64(i + 1)) }
        }
        // 2 idle keys keep counts in their slots: a (1) and b (2) go.
        #expect(counts.makeRoom(besides: 2))
        #expect(counts.count == 1)
        #expect(counts.uncounted == 3)
        // 4 are more than the bound even with nothing here: c (3) goes too.
        #expect(!counts.makeRoom(besides: 4))
        #expect(counts.count == 0)
        #expect(counts.uncounted == 6)
        counts.giveUp(5)
        #expect(counts.uncounted == 11)
    }

    @Test func aKeyPushedOffTheIdleListKeepsItsCount() {
        // Each key: an emission and a dropped event, then its window ends and
        // it goes idle; 3,000 keys push most of them out of the key table
        // (whose idle list keeps 1,024). Back again, each line counts 2.
        func stamp(_ micros: Int) -> String {
            let fraction = String(micros % 1_000_000)
            return "\(10 + micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        }
        var text = ""
        for i in 0..<3_000 { text += "\(stamp(i * 100)) k\(i) first\n\(stamp(i * 100 + 1)) k\(i) dropped\n" }
        for i in 0..<3_000 { text += "\(stamp(1_000_000 + i * 100)) k\(i) again\n" }
        let input = ScratchFile()
        defer { input.remove() }
        input.write(Array(text.utf8))
        guard case let .success(.run(configuration)) = parseArguments(
            ["--throttle", "10us", "--replay", "--time-format", "unix", "--key-field", "2", "--count", "--stats"])
        else { preconditionFailure("bad arguments") }
        var reader = LineReader(fd: input.fd)
        var sink = RecordingSink()
        let report = runReplay(configuration, defaultYear: 2026, input: &reader, sink: &sink, signals: .none)
        let again = sink.emissions.filter { $0.line.suffix(5) == Array("again".utf8) }
        #expect(again.count == 3_000)
        #expect(again.allSatisfy { $0.count == 2 })
        #expect(sink.emissions.filter { $0.line.suffix(5) == Array("first".utf8) }.allSatisfy { $0.count == 1 })
        #expect(report.scheduler.uncountedDiscards == 0)
        #expect(report.statsText.contains("uncounted discards:  0\n"))
    }
}
