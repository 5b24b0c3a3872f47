// SPEC's Episodes, as naive as ReferenceModel and built on its emissions
// only: per key, after its k-th event, the episode could close at
// R = max(t_k + Q, e), e the latest emission time of the key's events up to
// k; it does close there if the episode is open (an emission of those
// events since the last close) and the key's next event comes at R or later
// (a timer due at R fires before an event at R). Under a policy that
// replaces its pending event (debounce, throttle-last, leading --trailing),
// an event that is never emitted was replaced by the key's next one: the
// key had something pending up to that next event, so nothing closed
// before it. Output order: by time, then input position, a resolved line
// (a copy of event k) after its key's own output at that time.

import PaceCore
import PaceTesting

extension ReferenceModel {
    /// One output line with episodes: which event (a resolved line is a copy
    /// of its key's event k), when, and its mark.
    struct Marked: Equatable {
        var time: Instant
        var event: Int
        var mark: EpisodeMark
    }

    static func episodes(of events: [ReferenceEvent], policy: ReferencePolicy, keyed: Bool,
                         quiet: Nanoseconds) -> [Marked] {
        let (emitted, _) = run(events, policy: policy, keyed: keyed)
        var emissionTime: [Int: Instant] = [:]
        for e in emitted { emissionTime[e.event] = e.time }
        let replaces: Bool
        switch policy {
        case .debounce, .throttleLast, .leadingTrailing: replaces = true
        default: replaces = false
        }
        var out: [Marked] = []
        var keysInOrder: [String] = []
        var eventsOfKey: [String: [Int]] = [:]
        for (i, event) in events.enumerated() {
            let key = keyed ? event.key : ""
            if eventsOfKey[key] == nil { keysInOrder.append(key) }
            eventsOfKey[key, default: []].append(i)
        }
        for key in keysInOrder {
            let indices = eventsOfKey[key]!
            // Each output of the key, with whether it opens an episode.
            var outputs: [(time: Instant, event: Int, resolved: Bool)] = []
            var latestEmission: Instant = .min
            var lastClosedAfter = -1  // the position k of the last close
            for (k, i) in indices.enumerated() {
                if let e = emissionTime[i] { latestEmission = max(latestEmission, e) }
                if replaces && emissionTime[i] == nil { continue }
                let r = max(events[i].time.saturatingAdd(quiet), latestEmission)
                let nextTime = k + 1 < indices.count ? events[indices[k + 1]].time : Instant.max
                guard r <= nextTime else { continue }
                let open = indices[(lastClosedAfter + 1)...k].contains { emissionTime[$0] != nil }
                guard open else { continue }
                outputs.append((r, i, true))
                lastClosedAfter = k
            }
            for i in indices { if let e = emissionTime[i] { outputs.append((e, i, false)) } }
            outputs.sort { ($0.time, $0.event, $0.resolved ? 1 : 0) < ($1.time, $1.event, $1.resolved ? 1 : 0) }
            var isOpen = false
            for o in outputs {
                let mark: EpisodeMark
                if o.resolved {
                    mark = .resolved
                    isOpen = false
                } else {
                    mark = isOpen ? .repeat : .first
                    isOpen = true
                }
                out.append(Marked(time: o.time, event: o.event, mark: mark))
            }
        }
        out.sort { a, b in
            (a.time, a.event, a.mark == .resolved ? 1 : 0) < (b.time, b.event, b.mark == .resolved ? 1 : 0)
        }
        return out
    }
}
