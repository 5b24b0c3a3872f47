// Open episodes (`--resolve-after`) in the state file: the `episode` field
// after a key's state, written by hand below; any bytes of a last line
// round-trip; a file with episodes is refused by a run without
// `--resolve-after` and when its episode field is damaged.

@testable import PaceCore
import PaceTesting
import Testing

private func flags(resolveAfter: Nanoseconds? = 60_000_000_000) -> StateFlags {
    var configuration = Configuration(policy: .throttle(1_000_000_000))
    configuration.resolveAfter = resolveAfter
    return StateFlags(configuration, keyFieldText: Array("1".utf8))
}

private let head = """
    pace state 1
    flags\t--throttle=1000000000ns\t--trailing=absent\t--burst=absent\t--then-every=absent\t--resolve-after=60000000000ns\t--key-field=1\t--delimiter=absent

    """

struct StateEpisodeFormatTests {
    @Test("an open episode's text: `episode`, its T and its last line escaped, after the key's state")
    func text() {
        var snapshot = StateSnapshot()
        snapshot.append(key: Array("web-1".utf8), state: .window(end: Instant(nanoseconds: 1_795_953_610_250_000_000)),
                        owed: 3, episode: (Instant(nanoseconds: 1_795_953_670_000_000_001), Array("disk\tfull\\\u{7F}".utf8)))
        snapshot.append(key: Array("db".utf8), state: nil, owed: 0,
                        episode: (Instant(nanoseconds: 1_795_953_601_500_000_000), [0xFF, 0x0A, 0x0D, 0x20]))
        snapshot.append(key: Array("idle".utf8), state: nil, owed: 2)
        let text = String(decoding: StateFormat.encode(snapshot, flags: flags()), as: UTF8.self)
        #expect(text == head + """
            keys\t3
            web-1\t3\twindow\t1795953610.250000000\tepisode\t1795953670.000000001\tdisk\\tfull\\\\\\x7f
            db\t0\tidle\tepisode\t1795953601.500000000\t\\xff\\n\\r\u{20}
            idle\t2\tidle
            end

            """)
        let decoded = try? StateFormat.decode(Array(text.utf8), flags: flags()).get()
        #expect(decoded == snapshot)
    }

    @Test("every byte of a last line round-trips, with keys with and without episodes")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 2222)
        var snapshot = StateSnapshot()
        for i in 0..<400 {
            // Made its own by its number at its end: a state holds a key once.
            let key = (0..<rng.below(12)).map { _ in UInt8(rng.below(256)) } + [UInt8(i & 0xFF), UInt8(i >> 8)]
            // All 256 bytes in the first lines, then random ones of random length (empty too).
            let line: [UInt8] = i < 256 ? [UInt8(i), 0x5C, UInt8(255 - i)] : (0..<rng.below(40)).map { _ in UInt8(rng.below(256)) }
            let state: SavedState? = i % 3 == 0 ? nil : .window(end: Instant(nanoseconds: Int64(rng.below(1 << 62)) - (1 << 61)))
            let episode = i % 7 == 6 ? nil : (Instant(nanoseconds: Int64(rng.below(1 << 62)) - (1 << 61)), line)
            snapshot.append(key: key, state: state, owed: Int64(rng.below(1 << 40)), episode: episode)
        }
        let decoded = try StateFormat.decode(StateFormat.encode(snapshot, flags: flags()), flags: flags()).get()
        #expect(decoded == snapshot)
        #expect(decoded.episodes.compactMap { $0 }.count == 400 - 400 / 7)
        #expect(decoded.withEpisodeLine(5) { Array($0) } == [5, 0x5C, 250])
    }

    @Test("an episode field that is damaged, or in a state saved without --resolve-after, is refused", arguments: [
        ("a\t0\tidle\tepisode\t1.000000000\n", 4),                      // no last line
        ("a\t0\tidle\tepisode\t1.0\tx\n", 4),                           // a time without 9 decimals
        ("a\t0\tidle\tepisodes\t1.000000000\tx\n", 4),                  // an unknown field
        ("a\t0\tidle\tepisode\t1.000000000\tx\\q\n", 4),                // an escape `escape` never writes
        ("a\t0\tidle\tepisode\t1.000000000\tx\textra\n", 4),            // a field too many
    ])
    func damaged(line: String, number: Int) {
        let bytes = Array((head + "keys\t1\n" + line + "end\n").utf8)
        #expect(StateFormat.decode(bytes, flags: flags()) == .failure(.damaged(line: number)))
    }

    @Test("a file with an episode under flags without --resolve-after is damaged, not misread")
    func withoutResolveAfter() {
        let plain = flags(resolveAfter: nil)
        let bytes = Array(plain.line) + Array("\nkeys\t1\na\t0\tidle\tepisode\t1.000000000\tx\nend\n".utf8)
        #expect(StateFormat.decode(Array("pace state 1\n".utf8) + bytes, flags: plain) == .failure(.damaged(line: 4)))
        let good = Array("pace state 1\n".utf8) + Array(plain.line) + Array("\nkeys\t1\na\t0\tidle\nend\n".utf8)
        #expect((try? StateFormat.decode(good, flags: plain).get())?.count == 1)
    }
}
