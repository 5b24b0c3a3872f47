// `--stats`' count of distinct keys, in bounded memory: exact up to `limit`
// keys (SPEC: 1,000,000), estimated beyond. The key table forgets idle keys,
// so it cannot say how many keys a run has seen; this set remembers each one
// while they fit. A hash alone is not enough (two keys that hash alike would
// count once), so it keeps each key's bytes: in Storage's byte-key table,
// packed one after another in one buffer (`PackedKeys`), since none is ever
// removed.
//
// The key that would make one too many turns the set into a HyperLogLog
// sketch (Flajolet, Fusy, Gandouet, Meunier 2007) of 2^14 one-byte registers,
// built from the hashes kept so far, and the exact set is freed: 16 KB from
// then on, whatever the number of keys. Its estimate has a relative standard
// error of 1.04 / sqrt(2^14) = 0.8125%, which `--stats` shows as `±0.8%`.
//
// Only the scheduler's path for a key new to the key table calls it, never
// the per-line path.

// libc: log, for the sketch's small-range estimate.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct DistinctKeys: ~Copyable {
    /// SPEC's bound on exact counting.
    static let defaultLimit = 1_000_000
    /// The sketch's registers: 2^precision.
    static let precision = 14
    /// Its relative standard error, as `--stats` shows it.
    static let standardErrorText = "±0.8%"

    let limit: Int
    /// The keys seen, numbered in order, while they are counted exactly.
    private var table = ByteKeyTable<PackedKeys>()
    /// The sketch, once there were more than `limit` keys.
    private var registers: [UInt8]?

    init(limit: Int = DistinctKeys.defaultLimit) {
        precondition(limit > 0, "DistinctKeys: limit must be positive")
        self.limit = limit
    }

    /// True once the count is an estimate.
    var isEstimated: Bool { registers != nil }

    /// The number of distinct keys inserted: exact, or the sketch's estimate.
    var count: Int64 {
        guard let registers else { return Int64(table.count) }
        return Self.estimate(registers)
    }

    /// Adds `key` (whose `hashBytes` is `hash`); true if it is known to be
    /// new (always false once the count is an estimate).
    @discardableResult
    mutating func insert(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
        if registers != nil {
            Self.add(hash, to: &registers!)
            return false
        }
        if table.find(key, hash: hash) != nil { return false }
        if table.count == limit {
            var sketch = [UInt8](repeating: 0, count: 1 << Self.precision)
            for entry in 0..<Int32(table.count) { Self.add(table.hash(of: entry), to: &sketch) }
            Self.add(hash, to: &sketch)
            registers = sketch
            table = ByteKeyTable()
            return false
        }
        table.insert(key, hash: hash, slot: Int32(table.count))
        return true
    }

    // MARK: - The sketch

    /// A register takes the highest rank (position of the first 1 bit) seen
    /// among the hashes whose top bits name it.
    private static func add(_ hash: UInt64, to registers: inout [UInt8]) {
        let mixed = mix(hash)
        let index = Int(mixed >> UInt64(64 - precision))
        let rest = mixed << UInt64(precision)
        let rank = UInt8(min(rest.leadingZeroBitCount, 64 - precision) + 1)
        if rank > registers[index] { registers[index] = rank }
    }

    /// The raw estimate, with linear counting for small counts (not reached
    /// past the exact limit, kept for a small `limit` in tests).
    static func estimate(_ registers: [UInt8]) -> Int64 {
        let m = Double(registers.count)
        var sum = 0.0
        var zeros = 0
        for r in registers {
            sum += 1.0 / Double(UInt64(1) << UInt64(r))
            if r == 0 { zeros += 1 }
        }
        let alpha = 0.7213 / (1 + 1.079 / m)
        var e = alpha * m * m / sum
        if e <= 2.5 * m && zeros > 0 { e = m * log(m / Double(zeros)) }
        return Int64(e.rounded())
    }

    /// The key table's hash, stirred again (a 64-bit finaliser), so that its
    /// top bits and its run of zeros are independent of each other.
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `about N (±0.8%)`: an estimate rounded to 3 significant digits, with
/// thousands separators, and the sketch's standard error.
func estimateText(_ n: Int64) -> String {
    var scale: Int64 = 1
    while n / scale >= 1_000 { scale *= 10 }
    let rounded = (n + scale / 2) / scale * scale
    return "about " + groupedDigits(rounded) + " (" + DistinctKeys.standardErrorText + ")"
}

/// `2000000` as `2,000,000`.
func groupedDigits(_ n: Int64) -> String {
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(d)
    }
    return out
}
