// `pace --help`, generated from the flag table in the layout of
// swift-argument-parser: OVERVIEW, USAGE, sections of aligned flags with
// `<value>` placeholders and defaults, then examples.

package func helpText(width: Int = 80) -> String {
    var out = """
        OVERVIEW: Rate-limit a stream of lines: debounce, throttle, limit or pace them.

        pace reads lines as timestamped events, passes them through one policy,
        and writes the lines that survive to stdout, byte for byte. Live, time is
        each line's arrival; with --replay, it is a timestamp read from the line,
        and the output is the same on every run.

        USAGE: \(usageLine)

        ARGUMENTS:
          <file>                  The input (default: stdin; '-' is stdin too).

        """
    out += section("POLICIES (exactly one)", flags: flagTable.filter { $0.section == .policy }, width: width)
    out += section("OPTIONS", flags: flagTable.filter { $0.section != .policy }, width: width)
    out += """

        Durations are a number and a unit: 300ms, 1.5s, .5s, 2m, 250us (ns us ms s m h).
        Rates are N/D, N lines (1 to 10^9) per duration or unit: 10/s, 600/h, 5/250ms.

        EXAMPLES:
          Each changed file, once its burst of events has been quiet for 300 ms:
            inotifywait -m -r src | pace --debounce 300ms --key-field 3

          The same, pace running the build; a newer save cancels a stale build:
            inotifywait -m -r src |
              pace --debounce 300ms --key-field 3 --exec 'make' --on-busy restart

          Notify at most once a minute per host:
            tail -F app.log | pace --throttle 1m --key-field host \\
              --exec 'notify-send "$PACE_KEY" "$PACE_LINE"'

          At most one line per host per minute from a log:
            tail -F app.log | pace --throttle 1m --key-field 2

          At most 10 lines a minute per host, the rest dropped:
            tail -F app.log | pace --limit 10/m --key-field 2

          Pace a log out at 100 lines a second:
            pace --rate 100/s app.log | nc -q1 collector 5140

          Replay a recorded log to see what a 2 s debounce would have let through:
            pace --debounce 2s --replay --time-format iso8601 --emit-time app.log

          Dedupe a log: one line per message (field 5 on) per minute, with its count:
            pace --throttle 1m --key-field 5- --count --replay app.log

          Audit a throttle afterwards: what it dropped, most frequent first:
            tail -F app.log | pace --throttle 10s --key-field 2 --dropped dropped.log
            sort dropped.log | uniq -c | sort -rn | head

          Record a live session once, then tune the window offline:
            cmd | pace --debounce 300ms --record session.rec
            pace --debounce 500ms --replay --time-format record session.rec

        """
    return out
}

private func section(_ title: String, flags: [Flag], width: Int) -> String {
    let column = 26
    var out = "\n\(title):\n"
    for flag in flags {
        var left = "  " + flag.names.joined(separator: ", ")
        if let value = flag.value { left += " <\(value)>" }
        var help = flag.help
        if let d = flag.defaultText { help += " (default: \(d))" }
        if flag.replayOnly { help += " [replay]" }
        let lines = wrap(help, width: max(20, width - column))
        if left.count <= column - 2 {
            out += left.padding(to: column) + lines[0] + "\n"
        } else {
            out += left + "\n" + String(repeating: " ", count: column) + lines[0] + "\n"
        }
        for line in lines.dropFirst() { out += String(repeating: " ", count: column) + line + "\n" }
    }
    return out
}

private func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
        if !current.isEmpty && current.count + 1 + word.count > width {
            lines.append(current)
            current = ""
        }
        current += current.isEmpty ? String(word) : " " + word
    }
    lines.append(current)
    return lines
}

extension String {
    fileprivate func padding(to length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
