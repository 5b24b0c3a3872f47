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
        return Instant(now.tv_sec) * 1_000_000_000 + Instant(now.tv_nsec)
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
}
