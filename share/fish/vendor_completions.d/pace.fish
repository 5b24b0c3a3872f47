# fish completion for pace(1).
#
# Kept in step with the flag table (Sources/PaceCore/CommandLine/Flags.swift):
# DocumentationTests fails if a flag, a named time format or an --on-bad-time
# action is missing here, and runs `fish -n` on it where fish is installed.
# A flag that takes a value has -r (or -x: a value that is not a file name);
# the conditions follow pace's usage rules: one policy, each flag once,
# --max-wait with --debounce only, --trailing with --leading only, --burst
# with --limit or --rate only, the replay-only flags with --replay only.

set -g __pace_valued debounce leading throttle throttle-first throttle-last limit rate max-wait batch burst \
    key-field delimiter time-format year time-field on-bad-time resolve-after exempt then-every count-field dropped record state metrics exec on-busy jobs kill-after

function __pace_given
    # Whether one of the flags named is on the line already, leaving out the
    # one whose value is being typed (`pace --debounce 1<TAB>`).
    set -l tokens (commandline -opc)[2..]
    if set -q tokens[1]; and contains -- (string replace -r -- '^--' '' $tokens[-1]) $__pace_valued
        set -e tokens[-1]
    end
    for token in $tokens
        test "$token" = --; and return 1
        contains -- (string replace -r -- '^--([^=]*).*' '$1' $token) $argv; and return 0
    end
    return 1
end

function __pace_time_formats
    printf '%s\t%s\n' auto 'the first named format that fits' \
        unix 'seconds since the epoch' \
        unix-ms 'integer milliseconds since the epoch' \
        unix-us 'integer microseconds since the epoch' \
        unix-ns 'integer nanoseconds since the epoch' \
        iso8601 '2026-11-29T12:00:00.123Z' \
        syslog 'Nov 29 12:00:00, no year' \
        clf '29/Nov/2026:12:00:00 +0000' \
        offset 'a duration since an origin'
    # `record` takes no --time-field: its time is the prefix.
    __pace_given time-field; or printf '%s\t%s\n' record 'what --record writes'
end

function __pace_record_format
    # Whether `--time-format record` is on the line: its time is the prefix,
    # so --time-field does not apply.
    string match -q -r -- '(^| )--time-format(=| )record( |$)' (string join -- ' ' (commandline -opc))
end

set -l no_policy "not __pace_given debounce leading throttle throttle-first throttle-last limit rate"

function __pace_durations
    # Once a number is typed, offer it with each unit.
    set -l token (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    string match -qr -- '^(?<number>[0-9]+\.?[0-9]*|\.[0-9]+)' $token; or return
    for unit in ns us ms s m h
        echo $number$unit
    end
end

function __pace_rates
    # n/duration: once n/ is typed, each unit (one of it).
    set -l token (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    string match -qr -- '^(?<count>[0-9]+)/' $token; or return
    for unit in ns us ms s m h
        echo $count/$unit
    end
end

# Policies: exactly one.
complete -c pace -n $no_policy -l debounce -x -a '(__pace_durations)' -d 'Trailing debounce: the last line of a burst'
complete -c pace -n $no_policy -l leading -x -a '(__pace_durations)' -d 'Leading-edge debounce: the first line of a burst'
complete -c pace -n $no_policy -l throttle -x -a '(__pace_durations)' -d 'Throttle, first: a line, then drop for the window'
complete -c pace -n $no_policy -l throttle-first -x -a '(__pace_durations)' -d 'Throttle, first (alias of --throttle)'
complete -c pace -n $no_policy -l throttle-last -x -a '(__pace_durations)' -d 'Throttle, latest: the latest line of each window'
complete -c pace -n $no_policy -l limit -x -a '(__pace_rates)' -d 'Count limit: at most n per duration, the rest dropped'
complete -c pace -n "$no_policy; and not __pace_given then-every" -l rate -x -a '(__pace_rates)' -d 'Pacing: delay lines to at most n per duration'

# Modifiers of one policy.
complete -c pace -n '__pace_given debounce; and not __pace_given max-wait' -l max-wait -x -a '(__pace_durations)' -d 'Longest a line stays pending'
complete -c pace -n '__pace_given leading; and not __pace_given trailing' -l trailing -d "Also emit a burst's last line"
complete -c pace -n '__pace_given debounce throttle-last; and not __pace_given batch then-every' -l batch -x -d 'Keep up to n pending lines and emit them as one batch'
complete -c pace -n '__pace_given limit rate; and not __pace_given burst' -l burst -x -d 'Bucket size: lines that may go out at once'

# Fields.
complete -c pace -n 'not __pace_given key-field' -l key-field -x -d 'State per key: fields N, N-M, N- or NAMEs'
complete -c pace -n 'not __pace_given exempt' -l exempt -x -d 'Lines whose field ITEM has one of VALUES pass outside the policy'
complete -c pace -n 'not __pace_given delimiter' -l delimiter -x -d 'Split fields at each single byte (\t is TAB)'

# Replay.
complete -c pace -n 'not __pace_given replay record state' -l replay -d "Time from each line's timestamp, virtual clock"
complete -c pace -n '__pace_given replay; and not __pace_given time-format' -l time-format -x -d 'Timestamp format, or a strptime-style pattern' -a '(__pace_time_formats)'
complete -c pace -n '__pace_given replay; and not __pace_given year' -l year -x -d 'Year of timestamps that carry none'
complete -c pace -n '__pace_given replay; and not __pace_given time-field; and not __pace_record_format' -l time-field -x -d 'Field number or NAME of the timestamp'
complete -c pace -n '__pace_given replay; and not __pace_given on-bad-time' -l on-bad-time -x -d 'A line whose timestamp does not parse' -a "
    error\t'end input before it, exit 1'
    skip\t'drop it and count it'
    pass\t'write it at once, outside the policy'"
complete -c pace -n '__pace_given replay; and not __pace_given marbles' -l marbles -d 'Draw input and output as marble diagrams'

# Output.
complete -c pace -n 'not __pace_given emit-time' -l emit-time -d 'Prefix each line with its emission time'
complete -c pace -n 'not __pace_given then-every rate batch' -l then-every -x -d "Of a key's discards, let every Mth in a row through"
complete -c pace -n 'not __pace_given count count-field' -l count -d 'Prefix each line with the lines it stands for'
complete -c pace -n 'not __pace_given resolve-after' -l resolve-after -x -a '(__pace_durations)' -d 'Mark episodes; a resolved line after this much quiet'
complete -c pace -n 'not __pace_given count count-field exec' -l count-field -x -d 'The count inside the line: a JSON member or a logfmt pair'
complete -c pace -n 'not __pace_given dropped' -l dropped -r -F -d 'Write the lines that do not reach stdout to a file'
complete -c pace -n 'not __pace_given record replay' -l record -r -F -d 'Live: also write every input line with its time'
complete -c pace -n 'not __pace_given state replay' -l state -r -F -d 'Live: keep per-key state across runs in a file'
complete -c pace -n 'not __pace_given stats' -l stats -d 'A summary on stderr at exit'
complete -c pace -n 'not __pace_given trace' -l trace -d "Each line's fate on stderr"
complete -c pace -n 'not __pace_given progress' -l progress -d 'A status line on stderr, when it is a terminal'
complete -c pace -n 'not __pace_given metrics' -l metrics -r -F -d 'Counters in the Prometheus text format, in a file'

# Commands.
complete -c pace -n 'not __pace_given exec count-field' -l exec -x -a '(__fish_complete_subcommand)' -d 'Run a shell command for each emitted line'
complete -c pace -n '__pace_given exec; and not __pace_given on-busy' -l on-busy -x -d "A line while its key's command runs" -a "
    queue\t'run after it'
    drop\t'discard the line'
    restart\t'SIGTERM the running command'"
complete -c pace -n '__pace_given exec; and not __pace_given jobs' -l jobs -x -d 'At most n commands at once'
complete -c pace -n '__pace_given exec; and not __pace_given kill-after' -l kill-after -x -a '(__pace_durations)' -d 'SIGKILL a command this long after SIGTERM'

complete -c pace -s h -l help -d 'Show the help and exit'
complete -c pace -l version -d 'Show the version and exit'
