// `--rate` holds every line that waits for its turn: a key's first in its
// slot's record, the rest in the slot's LineQueue (HeldLines). SPEC lets a
// backlog cost memory while it waits, but no longer: these tests hold a long
// backlog the way the scheduler does (append as lines come, drop the first
// as one goes out) and check, beside every line's bytes and order, what the
// queues keep allocated once it has drained, to nothing or to a few lines
// that keep waiting, and over a long run with a steady short backlog.

@testable import PaceCore
import Testing

/// Line `n`: its number, padded with `.` to 100 bytes.
private func line(_ n: Int) -> [UInt8] {
    let head = Array("line \(n) ".utf8)
    return head + [UInt8](repeating: UInt8(ascii: "."), count: 100 - head.count)
}

/// Holds and lets go of lines as `--rate`'s scheduler does, checking that
/// each slot's lines come out whole, in order, with their numbers.
private struct Backlog: ~Copyable {
    var held = HeldLines()
    /// Per slot: the next line to come out, and the next to go in.
    var next: [Int32: (out: Int, in: Int)] = [:]
    var wrongLines = 0

    mutating func hold(_ slot: Int32) {
        let n = next[slot, default: (1, 1)].in
        line(n).withUnsafeBytes { held.append($0, number: EventNumber(n), to: slot, borrowing: false) }
        next[slot, default: (1, 1)].in += 1
    }

    mutating func emit(_ slot: Int32) {
        let n = next[slot, default: (1, 1)].out
        if held.first(slot) != EventNumber(n) || !held.firstLine(slot).elementsEqual(line(n)) { wrongLines += 1 }
        held.dropFirst(slot)
        next[slot, default: (1, 1)].out += 1
    }

    var waiting: Int { held.count }
}

struct HeldLinesMemoryTests {
    static let backlog = 100_000
    /// What a short backlog of 10 lines may keep allocated: a few times their
    /// 1,160 bytes (16 bytes of number and length each) and the slack the
    /// queue compacts at, far from the 11.6 MB of the long backlog.
    static let smallStorage = 128 * 1024

    @Test("a long backlog on two keys, drained, leaves no queue storage behind")
    func drainedToNothing() {
        var backlog = Backlog()
        for _ in 0..<Self.backlog {
            backlog.hold(0)
            backlog.hold(1)
        }
        #expect(backlog.held.queueBytes >= 2 * (Self.backlog - 1) * 116, "the backlog waits in the queues")
        for _ in 0..<Self.backlog {
            backlog.emit(1)
            backlog.emit(0)
        }
        #expect(backlog.wrongLines == 0)
        #expect(backlog.waiting == 0)
        #expect(backlog.held.first(0) == nil && backlog.held.first(1) == nil)
        #expect(backlog.held.queueBytes == 0)
    }

    @Test("a long backlog drained to a few lines that keep waiting leaves the queue's storage small")
    func drainedToAFew() {
        var backlog = Backlog()
        for _ in 0..<Self.backlog { backlog.hold(0) }
        while backlog.waiting > 11 { backlog.emit(0) }
        // Lines now come as fast as they go: 10 wait behind the first.
        for _ in 0..<10_000 {
            backlog.hold(0)
            backlog.emit(0)
        }
        #expect(backlog.wrongLines == 0)
        #expect(backlog.waiting == 11)
        #expect(backlog.held.queueBytes <= Self.smallStorage, "bytes kept for 10 waiting lines")
        while backlog.waiting > 0 { backlog.emit(0) }
        #expect(backlog.wrongLines == 0)
        #expect(backlog.held.queueBytes == 0)
    }

    @Test("a short backlog that never drains, over a long run, keeps the queue's storage small")
    func steadyBacklog() {
        var backlog = Backlog()
        for _ in 0..<11 { backlog.hold(0) }
        // 200,000 lines through a queue that is never empty: 23 MB in all.
        for _ in 0..<200_000 {
            backlog.hold(0)
            backlog.emit(0)
        }
        #expect(backlog.wrongLines == 0)
        #expect(backlog.waiting == 11)
        #expect(backlog.held.queueBytes <= Self.smallStorage, "bytes kept for 10 waiting lines")
    }
}
