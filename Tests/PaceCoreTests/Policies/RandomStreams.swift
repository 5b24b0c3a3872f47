// The seeded random streams the randomized tests run (RandomizedPolicyTests,
// RandomizedKeyTests, AccountingInvariantTests and others), and the checks
// that they are what those tests need: rich in events at one instant and in
// events exactly D after another, and the same stream for the same seed.
// Every stream is a pure function of (variant, keyed, seed).

@testable import PaceCore
import PaceTesting
import Testing

// MARK: - Random streams

/// Which policy a random stream runs through.
enum PolicyVariant: String, CaseIterable, CustomTestStringConvertible {
    // Added last, so the earlier variants keep their streams.
    case debounce, debounceMaxWait, leading, throttleFirst, throttleLast, limit, rate, leadingTrailing
    /// `--batch N` (N from 1 to 4) with `--debounce`, with `--max-wait`, and
    /// with `--throttle-last`.
    case debounceBatch, debounceMaxWaitBatch, throttleLastBatch

    /// The variants without `--batch`, for the checks that hold of one line
    /// per output (batches go out in their own order).
    static var unbatched: [PolicyVariant] { allCases.filter { !$0.batches } }

    var batches: Bool { [.debounceBatch, .debounceMaxWaitBatch, .throttleLastBatch].contains(self) }

    var testDescription: String { rawValue }
}

struct RandomCase: CustomStringConvertible {
    var variant: PolicyVariant
    var keyed: Bool
    var seed: UInt64
    var policy: ReferencePolicy
    /// `--batch`'s N, or nil.
    var batch: Int?
    var events: [ReferenceEvent]
    /// When live mode's input ends, for the live-end check.
    var liveEnd: Instant

    var description: String {
        "variant \(variant), keyed \(keyed), seed \(seed): \(policy)\(batch.map { " --batch \($0)" } ?? "")"
            + "\(keyed ? " --key-field" : ""), "
            + "live end at \(liveEnd), \(events.count) events [(time, key, line)]: \(events)"
    }

    /// The grid every time and duration is a multiple of.
    static let grid: Nanoseconds = 10

    /// Key bytes that stress the key table: the empty key, one byte, and two
    /// keys longer than 8 bytes that differ only in their last byte.
    static let fewKeys = ["", "a", "b", "a-key-longer-than-8-bytes-1", "a-key-longer-than-8-bytes-2"]
    static let manyKeys = (0..<60).map { "key\($0)" }

    init(variant: PolicyVariant, keyed: Bool, seed: UInt64, manyKeys: Bool = false) {
        self.variant = variant
        self.keyed = keyed
        self.seed = seed
        // Mix the variant and keying in, so each combination sees other streams.
        let variantIndex = UInt64(PolicyVariant.allCases.firstIndex(of: variant)!)
        var rng = SplitMix64(seed: seed &* 0x1_0000 &+ variantIndex &* 2 &+ (keyed ? 1 : 0))
        let g = Self.grid

        let window = g * Int64(1 + rng.below(4))
        switch variant {
        case .debounce, .debounceBatch: policy = .debounce(window: window, maxWait: nil)
        case .debounceMaxWait, .debounceMaxWaitBatch:
            policy = .debounce(window: window, maxWait: window + g * Int64(rng.below(4)))
        case .leading: policy = .leading(window: window)
        case .leadingTrailing: policy = .leadingTrailing(window: window)
        case .throttleFirst: policy = .throttleFirst(window: window)
        case .throttleLast, .throttleLastBatch: policy = .throttleLast(window: window)
        case .limit, .rate:
            // N per D with I = D/N near the window, a rational number of
            // nanoseconds one time in two; the bucket 1, N or up to 5.
            let count = Int64(1 + rng.below(4))
            let period = window * count + (rng.below(2) == 0 ? 0 : Nanoseconds(1 + rng.below(9)))
            let burst = [1, count, Int64(1 + rng.below(5))][rng.below(3)]
            policy = variant == .limit ? .limit(count: count, period: period, burst: burst)
                                       : .rate(count: count, period: period, burst: burst)
        }

        batch = variant.batches ? 1 + rng.below(4) : nil

        // Unkeyed streams carry keys too: the Scheduler must ignore them.
        let pool = manyKeys ? Self.manyKeys : Self.fewKeys
        let keyCount = manyKeys ? pool.count : 1 + rng.below(pool.count)
        let eventCount = manyKeys ? 300 : rng.below(41)
        var time: Instant = [0, -1_000, 1_234_567_890][rng.below(3)]
        events = []
        for i in 0..<eventCount {
            let roll = rng.below(100)
            if roll < 35 {
                // Same instant as the previous event.
            } else if roll < 85 {
                // Up to D exactly: later events keep landing on deadlines.
                time += g * Int64(1 + rng.below(Int(window / g)))
            } else {
                time += g * Int64(rng.below(4 * Int(window / g)))
            }
            let key = pool[rng.below(keyCount)]
            // Lines of varied length, so held bytes are copied and buffers
            // reused; each names its event, so a mix-up shows.
            let line = "e\(i)" + String(repeating: "x", count: rng.below(3) == 0 ? rng.below(40) : 0)
            events.append(ReferenceEvent(time: time, key: key, line: line))
        }
        liveEnd = (events.last?.time ?? 0) + g * Int64(rng.below(Int(2 * window / g) + 1))
    }
}

extension RandomizedPolicyTests {
    /// The streams must actually be rich in what they are meant to test, or
    /// the comparisons with the model prove little.
    @Test func streamsAreRichInTies() {
        var sameInstant = 0
        var onADeadline = 0
        var events = 0
        var keyedLiveChecks = 0
        for variant in PolicyVariant.allCases {
            for seed in 1...Self.seedsPerCombination {
                let c = RandomCase(variant: variant, keyed: true, seed: seed)
                let window: Nanoseconds
                switch c.policy {
                case let .debounce(d, _), let .leading(d), let .leadingTrailing(d), let .throttleFirst(d), let .throttleLast(d):
                    window = d
                case let .limit(n, d, _), let .rate(n, d, _): window = d / n
                }
                events += c.events.count
                for (i, e) in c.events.enumerated() {
                    if i > 0 && c.events[i - 1].time == e.time { sameInstant += 1 }
                    if c.events[..<i].contains(where: { $0.time + window == e.time }) { onADeadline += 1 }
                }
                let expected = ReferenceModel.emissions(of: c.events, policy: c.policy, keyed: true)
                if expected.filter({ $0.time > c.liveEnd }).count <= 1 { keyedLiveChecks += 1 }
            }
        }
        #expect(sameInstant * 5 > events, "at least a fifth of events share the previous one's instant")
        #expect(onADeadline * 3 > events, "at least a third land exactly D after an earlier event")
        #expect(keyedLiveChecks * 2 > PolicyVariant.allCases.count * Int(Self.seedsPerCombination), "most keyed streams get the live-end check")
    }

    @Test func sameSeedSameStream() {
        let a = RandomCase(variant: .throttleLast, keyed: true, seed: 42)
        let b = RandomCase(variant: .throttleLast, keyed: true, seed: 42)
        let c = RandomCase(variant: .throttleLast, keyed: true, seed: 43)
        #expect(a.events == b.events && a.policy == b.policy)
        #expect(a.events != c.events)
        var rng = SplitMix64(seed: 0)
        // The published first output of SplitMix64 seeded with 0.
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
    }
}
