// `--exec --on-busy restart` with `--resolve-after`, live, one job: a line
// that replaces its key's waiting line must not strand the key's resolved
// line waiting behind it (the queue lost the key's place, and pace never
// ended). Commands block on gates (LiveExecTests' `Commands`); readiness is
// `--trace` on stderr and the commands' own lines on stdout.

import Foundation
import Glibc
import Testing

@Suite("--exec restart with episodes, live", .serialized)
struct ExecEpisodeRestartTests {
    @Test("a line replacing its key's waiting one, in front of that key's resolved line, leaves both to run")
    func replacedInFrontOfAResolvedLine() throws {
        let c = try Commands("echo \"start $PACE_EVENT $n\"; gate $PACE_EVENT-$n; echo \"end $PACE_EVENT $n\"")
        c.makeGates(["first-1", "resolved-1", "first-2", "resolved-2", "first-3", "resolved-3"])
        let pace = try PipedPace(["--throttle", "30ms", "--key-field", "2", "--resolve-after", "50ms", "--trace",
                                  "--on-busy", "restart", "--exec", c.command])
        pace.write("1 a\n")
        #expect(pace.readLine() == "start first 1")
        // Line 2 waits for the one job; then its episode resolves, and its
        // resolved line waits behind it.
        pace.write("2 c\n")
        func awaitTrace(_ text: String) -> Bool {
            while let line = pace.readLine(stderr: true) { if line.contains(text) { return true } }
            return false
        }
        #expect(awaitTrace("line 2: its key's episode resolved"))
        // c's window is over: line 3 goes out and replaces line 2.
        pace.write("3 c\n")
        #expect(awaitTrace("line 2: not run: replaced by line 3"))
        var starts: [String] = []
        c.release("first-1")
        while starts.count < 4, let line = pace.readLine() {
            guard line.hasPrefix("start ") else { continue }
            starts.append(String(line.dropFirst(6)))
            c.release(line.dropFirst(6).replacingOccurrences(of: " ", with: "-"))
        }
        #expect(starts == ["resolved 1", "resolved 2", "first 3", "resolved 3"])
        let end = pace.finish()
        #expect(String(decoding: end.output, as: UTF8.self) == "end resolved 3\n")
        #expect(end.status == 0)
    }
}
