"""bench-replay's measurements, each a function of a `Session` (the run's
logs, results and failures), and the tables it prints from them.

  session    one run: its temporary folder, logs, results and failures
  awk        the mawk baselines, with SPEC's semantics
  speed      throughput next to wc, cat, awk and jq; accounting; output checks
  memory     peak RSS: distinct keys, pending keys, a long log, --stats
  limits     --limit against --throttle, and --rate's backlog
  pipes      output through a pipe to cat, this build and the one before
  tables     the throughput and memory tables, and the targets
"""
