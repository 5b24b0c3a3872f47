// Replay searches for the key's field from where the line's unix timestamp
// ended (FieldPosition), not from the line's start. These runs have
// timestamps that end inside their field (`,x`), in brackets, after
// leading blanks, and lines with too few fields: the keys must be the
// fields a plain split gives (worked out by hand in the comments).

@testable import PaceCore
import PaceTesting
import Testing

struct KeyAfterTimeTests {
    @Test func theKeyFieldAfterATimestampThatEndsInsideItsField() {
        // --throttle 1s per key of field 2: keys a, b, a, b, c, "", "", c.
        let input = """
            1795953600.1,x a 1
            1795953600.2 b 2
            1795953600.3,y a 3
            [1795953600.4] b 4
              1795953600.5\tc 5
            1795953600.6
            1795953600.7\u{20}
            1795953600.8 c 8

            """
        // a and b pass at .1 and .2, their repeats (.3, .4) fall in their
        // windows; c passes at .5, the empty key at .6 (and .7 is its
        // repeat), and c's .8 is in c's window.
        let run = replay(["--replay", "--throttle", "1s", "--key-field", "2"], input)
        #expect(run.stdout == "1795953600.1,x a 1\n1795953600.2 b 2\n  1795953600.5\tc 5\n1795953600.6\n")
    }

    @Test func aLaterKeyFieldAndATimeFieldPastTheFirst() {
        // --time-field 2, --key-field 4: keys k, k, j; the time ends at
        // `ms` in field 2.
        let input = """
            a 1795953600100 x k
            a 1795953600200,z y k
            a 1795953600300 z j

            """
        let run = replay(["--replay", "--time-format", "unix-ms", "--time-field", "2", "--throttle", "1s",
                          "--key-field", "4"], input)
        #expect(run.stdout == "a 1795953600100 x k\na 1795953600300 z j\n")
    }
}
