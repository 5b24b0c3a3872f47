// SlotBytes keeps each slot's pending line (and the key table's keys) in
// buffers it allocates itself. These tests pin what the arrays it replaced
// gave for free: each slot's bytes are its own, any length works, and a copy
// of the value is independent of the original (copy-on-write).

@testable import PaceCore
import Testing

private func bytes(_ store: SlotBytes, _ slot: Int32) -> [UInt8] {
    store.withBytes(of: slot) { Array($0) }
}

private func store(_ store: inout SlotBytes, _ text: String, in slot: Int32) {
    var text = text
    text.withUTF8 { store.store(UnsafeRawBufferPointer($0), in: slot) }
}

struct SlotBytesTests {
    @Test func eachSlotKeepsItsOwnBytes() {
        var lines = SlotBytes()
        let longer = "a line longer than a buffer's first capacity" + String(repeating: "x", count: 200)
        store(&lines, "first", in: 0)
        store(&lines, longer, in: 3)
        store(&lines, "", in: 1)
        #expect(bytes(lines, 0) == Array("first".utf8))
        #expect(bytes(lines, 1) == [])
        #expect(bytes(lines, 2) == [])
        #expect(bytes(lines, 3) == Array(longer.utf8))
        #expect(bytes(lines, 40) == [])
        store(&lines, "again", in: 0)
        #expect(bytes(lines, 0) == Array("again".utf8))
    }

    @Test func aLineOfAnyLengthIsKeptAndClearedSlotsAreEmpty() {
        var lines = SlotBytes()
        let long = String(repeating: "0123456789", count: 100_000)
        store(&lines, long, in: 5)
        #expect(bytes(lines, 5) == Array(long.utf8))
        lines.clear(5)
        #expect(bytes(lines, 5) == [])
        store(&lines, "short", in: 5)
        #expect(bytes(lines, 5) == Array("short".utf8))
    }

    @Test func copiesAreIndependent() {
        var original = SlotBytes()
        for slot in 0..<40 { store(&original, "line \(slot)", in: Int32(slot)) }
        var copy = original
        store(&copy, "changed", in: 7)
        copy.clear(8)
        #expect(bytes(original, 7) == Array("line 7".utf8))
        #expect(bytes(original, 8) == Array("line 8".utf8))
        #expect(bytes(copy, 7) == Array("changed".utf8))
        #expect(bytes(copy, 8) == [])
        store(&original, "changed too", in: 9)
        #expect(bytes(copy, 9) == Array("line 9".utf8))
    }
}
