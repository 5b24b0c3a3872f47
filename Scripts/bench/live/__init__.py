"""bench-live's pieces: how late, how exact and how idle pace's live mode is.

  model      SPEC's semantics per key, written here independently of pace,
             and the seeded scenarios whose events keep a margin from every
             boundary
  run        one filter over one scenario through a pipe: lateness, lost
             and extra lines, idle CPU and wake-ups
  reference  the same policies as an asyncio filter, to run side by side
"""
