// CommandQueue under a long backlog: one key's waiting lines kept in place and
// their space given back as they drain, and restarts while every slot is busy
// leaving no trail of stale entries. On plain values, with CommandQueueTests'
// Harness.

@testable import PaceCore
import Testing

extension CommandQueueTests {
    // MARK: - A long backlog

    @Test("one key's backlog is kept in place: its storage moves only as it grows, never once per line")
    func backlogInPlace() {
        var h = Harness()
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        var moves = 0
        var address: UnsafeRawPointer?
        for line in 1...50_000 {
            _ = h.submit(EventNumber(line), "a")
            let now = h.queue.waitingStorage(of: "a")?.address
            if now != address { moves += 1 }
            address = now
        }
        #expect(h.queue.waitingCount == 50_000)
        // An array that doubles as it grows moves about log2(50,000) = 16
        // times. A key state copied out of the table and put back would copy
        // its lines on every submit, into a new buffer each time (the old
        // one is still alive when the copy is made): 50,000 moves.
        #expect(moves <= 24)
    }

    @Test("a drained backlog gives its space back while the key still has lines waiting")
    func backlogShrinks() {
        var h = Harness()
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        for line in 1...50_000 { _ = h.submit(EventNumber(line), "a") }
        for line in 0..<49_990 {
            #expect(h.exited(EventNumber(line)) == [.start(EventNumber(line + 1), key: "a", count: 1)])
        }
        #expect(h.queue.waitingCount == 10)
        // The peak needed 50,000 slots; what is kept is bounded by what
        // waits (Storage/FIFO: at most 64 KiB past four times that).
        #expect((h.queue.waitingStorage(of: "a")?.capacity ?? .max) < 4_096)
    }

    @Test("a dictionary that emptied is rebuilt smaller; a full or small one is left alone")
    func dictionaryGivesSpaceBack() {
        var table: [Int: Int] = [:]
        for i in 0..<100_000 { table[i] = i }
        let full = table.capacity
        table.releaseSpareCapacity()
        #expect(table.capacity == full)
        for i in 0..<99_000 { table[i] = nil }
        #expect(table.capacity == full)
        table.releaseSpareCapacity()
        #expect(table.capacity < 4 * 1_000)
        #expect(table.count == 1_000 && table[99_500] == 99_500)
        var small: [Int: Int] = [1: 1]
        let smallCapacity = small.capacity
        small.releaseSpareCapacity()
        #expect(small.capacity == smallCapacity)
    }

    @Test("restart while every slot is busy: lines replacing each other leave no trail of stale entries")
    func replacementsWhileSlotsAreBusy() {
        var h = Harness(jobs: 1, onBusy: .restart)
        #expect(h.submit(0, "a") == [.start(0, key: "a", count: 1)])
        #expect(h.submit(1, "b") == [])
        for line in 2...10_000 {
            #expect(h.submit(EventNumber(line), "b") == [.discard(EventNumber(line - 1), .replaced)])
        }
        #expect(h.queue.waitingCount == 1)
        // One live entry (b's line); the stale ones are dropped in rebuilds.
        #expect(h.queue.readyEntries <= 2 * 2 + 64)
        #expect(h.exited(0) == [.start(10_000, key: "b", count: 10_000)])
        #expect(h.exited(10_000) == [])
        h.endWhenIdle()
    }
}
