// The real live clock reads CLOCK_BOOTTIME (SPEC, Time): monotonic, and
// counting the time the machine spends suspended.

import Glibc
import Testing
import PaceCore

@Suite("System live clock")
struct SystemLiveClockTests {
    private func boottime() -> Instant {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Instant(nanoseconds: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
    }

    @Test("events are timed on CLOCK_BOOTTIME")
    func readsBoottime() {
        #expect(liveClockID == CLOCK_BOOTTIME)
        let clock = SystemLiveClock(inputFD: -1, outputFD: -1)
        // Between two readings of CLOCK_BOOTTIME: CLOCK_MONOTONIC would fall
        // below the first on any machine that has ever been suspended.
        let before = boottime()
        let now = clock.monotonicNow()
        let after = boottime()
        #expect(before <= now && now <= after)
    }

    @Test("a wait ends at its deadline, never before, and again for the same deadline; input wakes it")
    func waitsForDeadlineAndInput() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var clock = SystemLiveClock(inputFD: fds[0], outputFD: -1)
        let deadline = clock.monotonicNow() + 20_000_000
        #expect(clock.wait(until: deadline) == .deadline)
        #expect(clock.monotonicNow() >= deadline)
        // The timer has fired: a wait for the same deadline (now past) ends at once.
        #expect(clock.wait(until: deadline) == .deadline)
        #expect(write(fds[1], "x", 1) == 1)
        #expect(clock.wait(until: clock.monotonicNow() + 10_000_000_000) == .inputReady)
        #expect(clock.wait(until: nil) == .inputReady)
    }

    @Test("--exec's descriptor and kill deadline: .commandsReady, before input that is ready too; the timer's deadline still fires")
    func watchesCommands() {
        var input: [Int32] = [0, 0]
        var commands: [Int32] = [0, 0]
        #expect(pipe(&input) == 0 && pipe(&commands) == 0)
        defer { for fd in input + commands { close(fd) } }
        var clock = SystemLiveClock(inputFD: input[0], outputFD: -1)
        let far = clock.monotonicNow() + 10_000_000_000
        // The kill deadline comes first: it ends the wait, not the timer's.
        let kill = clock.monotonicNow() + 20_000_000
        #expect(clock.wait(until: far, commandFD: commands[0], commandDeadline: kill) == .commandsReady)
        #expect(clock.monotonicNow() >= kill)
        // The timer's deadline comes first: .deadline, at its time.
        let timer = clock.monotonicNow() + 20_000_000
        #expect(clock.wait(until: timer, commandFD: commands[0], commandDeadline: far) == .deadline)
        #expect(clock.monotonicNow() >= timer)
        // A command exited while input streams: the runner goes first.
        #expect(write(input[1], "x", 1) == 1)
        #expect(write(commands[1], "x", 1) == 1)
        #expect(clock.wait(until: far, commandFD: commands[0], commandDeadline: nil) == .commandsReady)
        var byte: UInt8 = 0
        #expect(read(commands[0], &byte, 1) == 1)
        #expect(clock.wait(until: far, commandFD: commands[0], commandDeadline: nil) == .inputReady)
    }
}
