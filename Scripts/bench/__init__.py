"""The pieces pace's benchmark scripts share, so that each script is a short
entry point (Scripts/bench-replay, Scripts/callgrind-replay,
Scripts/bench-live) and the same log, build and timing are written once.

Python 3 standard library only. The entry points live in Scripts/, beside this
folder, so `import bench` finds it without any path set up.

  build      pace's release build; mawk, GNU time and jq when missing
  timing     one run's wall time and peak RSS, the best of several, runs
             taking turns
  data       the benchmark's synthetic logs (seeded, so every run the same)
  outputs    comparing what two runs printed
  report     markdown tables, targets met or MISSED, failures and exit status
  loghub     the loghub samples kept beside the repository
  replay/    bench-replay's measurements and tables
  live/      bench-live's model of SPEC, scenarios, runner and asyncio
             reference
"""
