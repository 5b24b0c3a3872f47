// The size replay asks of a pipe as stdout (OutputPipe): 1 MiB for a smaller
// pipe, nothing for one that holds as much already, and nothing at all for a
// descriptor that is not a pipe or when asked for 0.

@testable import PaceCore
import Glibc
import Testing

struct OutputPipeSizeTests {
    @Test("a pipe smaller than 1 MiB is asked to hold 1 MiB; one as large or larger is left as it is",
          arguments: [(4096, 1 << 20), (65_536, 1 << 20), (524_288, 1 << 20), (1 << 20, nil), (4 << 20, nil)]
              as [(Int, Int?)])
    func sizeAsked(current: Int, asked: Int?) {
        #expect(OutputPipe.capacityToAsk(current: current) == asked)
    }

    @Test("a regular file is not a pipe: nothing is asked, nothing is changed")
    func notAPipe() throws {
        let file = try #require(tmpfile())
        defer { fclose(file) }
        #expect(OutputPipe.enlarge(fileno(file)) == nil)
    }

    @Test("asked for 0, a pipe keeps its size")
    func zeroLeavesThePipe() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { for fd in fds { close(fd) } }
        #expect(OutputPipe.enlarge(fds[1], to: 0) == 65_536)
        #expect(OutputPipe.enlarge(fds[1]) == 1 << 20)
    }
}
