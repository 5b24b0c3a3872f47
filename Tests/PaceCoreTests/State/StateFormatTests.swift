// The state file's format: every policy's saved state, what each key owes
// and keys of any byte go through encode and decode unchanged; the file's
// text is the one written by hand below; damaged files are refused with
// their reason.

@testable import PaceCore
import PaceTesting
import Testing

private func flags(_ policy: PolicyChoice, keyField: String? = "1") -> StateFlags {
    StateFlags(Configuration(policy: policy), keyFieldText: keyField.map { Array($0.utf8) })
}

struct StateFormatTests {
    @Test("the text of a state, written by hand")
    func text() {
        var snapshot = StateSnapshot()
        snapshot.append(key: Array("web-1".utf8), state: .window(end: Instant(nanoseconds: 1_795_953_610_250_000_000)), owed: 0)
        snapshot.append(key: [0x64, 0x62, 0x09, 0x32, 0xFF, 0x5C, 0x0A], state: nil, owed: 7)
        let text = String(decoding: StateFormat.encode(snapshot, flags: flags(.throttle(10_000_000_000))), as: UTF8.self)
        #expect(text == """
            pace state 1
            flags\t--throttle=10000000000ns\t--trailing=absent\t--burst=absent\t--then-every=absent\t--resolve-after=absent\t--key-field=1\t--delimiter=absent
            keys\t2
            web-1\t0\twindow\t1795953610.250000000
            db\\t2\\xff\\\\\\n\t7\tidle
            end

            """)
    }

    @Test("a bucket's A: its ceiling in seconds and how far below it, for --limit with its burst")
    func bucketText() {
        let rate = CellRate(count: 3, per: 1_000_000_000, burst: 5)
        var snapshot = StateSnapshot()
        snapshot.append(key: [], state: .bucket(arrival: ExactInstant(ceiling: -1_500_000_001, below: 2)), owed: 1)
        let text = String(decoding: StateFormat.encode(snapshot, flags: flags(.limit(rate), keyField: nil)), as: UTF8.self)
        #expect(text == """
            pace state 1
            flags\t--limit=3/1000000000ns\t--trailing=absent\t--burst=5\t--then-every=absent\t--resolve-after=absent\t--key-field=absent\t--delimiter=absent
            keys\t1
            \t1\tbucket\t-1.500000001\t2
            end

            """)
    }

    @Test("every byte of a key, and every policy's state, round-trip", arguments: [
        PolicyChoice.throttle(5), .throttleLast(5), .leading(5), .leadingTrailing(5), .debounce(5, maxWait: nil),
        .limit(CellRate(count: 7, per: 1_000, burst: 3)), .rate(CellRate(count: 7, per: 1_000, burst: 1)),
    ])
    func roundTrip(policy: PolicyChoice) throws {
        var rng = SplitMix64(seed: 22)
        let given = flags(policy)
        var snapshot = StateSnapshot()
        for i in 0..<300 {
            // All 256 bytes in the first keys, then random ones of random
            // length, each made its own by its number at its end (a state
            // holds a key once) and longer than the first ones.
            let key: [UInt8] = i < 256 ? [UInt8(i), 0x5C, UInt8(255 - i)]
                : (0..<2 + rng.below(20)).map { _ in UInt8(rng.below(256)) } + [UInt8(i & 0xFF), UInt8(i >> 8)]
            let saved: SavedState?
            switch policy {
            case .debounce: saved = nil
            case .limit, .rate: saved = .bucket(arrival: ExactInstant(ceiling: Int128(rng.below(1 << 40)) - (1 << 39),
                                                                      below: Int64(rng.below(7))))
            default: saved = .window(end: Instant(nanoseconds: Int64(rng.below(1 << 62)) - (1 << 61)))
            }
            snapshot.append(key: key, state: i % 5 == 0 ? nil : saved, owed: Int64(rng.below(1 << 62)))
        }
        let decoded = try StateFormat.decode(StateFormat.encode(snapshot, flags: given), flags: given).get()
        #expect(decoded == snapshot)
    }

    @Test("each policy's state is saved without its pending line, and restored")
    func policyStates() {
        let end = Instant(nanoseconds: 42)
        #expect(ThrottleFirst<EventNumber>(window: 1).saved(.window(end: end)) == .window(end: end))
        #expect(ThrottleFirst<EventNumber>(window: 1).saved(.idle) == nil)
        #expect(ThrottleLast<EventNumber>(window: 1).saved(.window(end: end, latest: 9)) == .window(end: end))
        #expect(ThrottleLast<EventNumber>(window: 1).restored(.window(end: end)) == .window(end: end, latest: nil))
        #expect(BatchThrottleLast<EventNumber>(window: 1, limit: 5).saved(.window(end: end, first: 9, count: 3))
                == .window(end: end))
        #expect(BatchThrottleLast<EventNumber>(window: 1, limit: 5).saved(.idle) == nil)
        #expect(BatchThrottleLast<EventNumber>(window: 1, limit: 5).restored(.window(end: end))
                == .window(end: end, first: nil, count: 0))
        #expect(LeadingTrailing<EventNumber>(window: 1).saved(.window(end: end, pending: 9)) == .window(end: end))
        #expect(LeadingTrailing<EventNumber>(window: 1).restored(.window(end: end)) == .window(end: end, pending: nil))
        #expect(Leading<EventNumber>(window: 1).restored(.window(end: end)) == .window(end: end))
        #expect(Debounce<EventNumber>(window: 1, maxWait: nil).saved(.pending(9, runStart: 1, deadline: 2)) == nil)
        let rate = CellRate(count: 2, per: 10, burst: 1)
        let a = ExactInstant(ceiling: 50, below: 1)
        #expect(Limit<EventNumber>(rate: rate).saved(.refilling(arrival: a)) == .bucket(arrival: a))
        #expect(Limit<EventNumber>(rate: rate).restored(.bucket(arrival: a)) == .refilling(arrival: a))
        #expect(Rate<EventNumber>(rate: rate).saved(Rate<EventNumber>.State(arrival: a, waiting: [3, 4], head: a))
                == .bucket(arrival: a))
        #expect(Rate<EventNumber>(rate: rate).restored(.bucket(arrival: a)) == Rate<EventNumber>.State(arrival: a))
        #expect(ThrottleFirst<EventNumber>(window: 1).restored(.bucket(arrival: a)) == nil)
    }

    @Test("damaged files are refused with their reason")
    func refused() {
        let given = flags(.throttle(5))
        var snapshot = StateSnapshot()
        snapshot.append(key: Array("a".utf8), state: .window(end: 9), owed: 1)
        let whole = StateFormat.encode(snapshot, flags: given)
        let text = String(decoding: whole, as: UTF8.self)
        func decode(_ text: String) -> StateFileProblem? {
            if case let .failure(problem) = StateFormat.decode(Array(text.utf8), flags: given) { return problem }
            return nil
        }
        #expect(decode(text) == nil)
        #expect(decode(String(text.dropLast())) == .truncated)
        #expect(decode("") == .foreign)
        #expect(decode("PACE STATE 1\n") == .foreign)
        #expect(decode("pace state 9\n") == .otherVersion)
        #expect(decode(text.replacingOccurrences(of: "\n", with: "\r\n")) == .damaged(line: 1))
        #expect(decode(text.replacingOccurrences(of: "keys\t1", with: "keys\t2")) == .damaged(line: 5))
        #expect(decode(text.replacingOccurrences(of: "keys\t1", with: "keys\t0")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "\twindow\t", with: "\twindow\tx")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "0.000000009", with: "0.00000009")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a\t-1")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a\\x4\t1")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a b\u{7F}\t1")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "000000009", with: "000000009\textra")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "window", with: "bucket")) == .damaged(line: 4))
        #expect(decode(text + "more\n") == .damaged(line: 5))
        // A time of 30 digits of seconds, and a count that a run's discards
        // could carry past Int64.max.
        #expect(decode(text.replacingOccurrences(of: "\twindow\t0.000000009",
                                                 with: "\twindow\t999999999999999999999999999999.000000000"))
                == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a\t9223372036854775807")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a\t4611686018427387904")) == .damaged(line: 4))
        #expect(decode(text.replacingOccurrences(of: "a\t1", with: "a\t4611686018427387903")) == nil)
        var twice = snapshot
        twice.append(key: Array("b".utf8), state: nil, owed: 2)
        twice.append(key: Array("a".utf8), state: nil, owed: 3)
        #expect(decode(String(decoding: StateFormat.encode(twice, flags: given), as: UTF8.self))
                == .repeatedKey(line: 6, first: 4))
        // Unkeyed, the one key is the empty one: a key "a" is no such state.
        let unkeyed = flags(.throttle(5), keyField: nil)
        var named = StateSnapshot()
        named.append(key: Array("a".utf8), state: nil, owed: 4)
        #expect(StateFormat.decode(StateFormat.encode(named, flags: unkeyed), flags: unkeyed) == .failure(.damaged(line: 4)))
        var empty = StateSnapshot()
        empty.append(key: [], state: nil, owed: 4)
        #expect(StateFormat.decode(StateFormat.encode(empty, flags: unkeyed), flags: unkeyed) == .success(empty))
        let other = flags(.throttle(6))
        if case let .otherFlags(saved, given)? = decode(String(decoding: StateFormat.encode(snapshot, flags: other), as: UTF8.self)) {
            #expect(given.firstDifference(from: saved)! == ("--throttle", "'5ns'", "'6ns'"))
        } else {
            Issue.record("a state saved under --throttle 6ns was not refused for its flags")
        }
    }
}
