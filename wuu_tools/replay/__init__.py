"""The replay: recorded agent runs, each output viewed as wuu would have shown it, scored by what the agent used next.

``sources.py`` finds recorded runs and tells each file's format; ``runs.py`` (mini-swe-agent trajectories,
Claude Code sessions) and ``codex.py`` (Codex rollouts) read them into outputs with the agent's next
message; ``views.py`` makes wuu's views and the plain cuts of an output; ``score.py`` scores the items each
keeps and the whole-run input; ``session.py`` replays a run through one session, with ``rtk.py`` (rtk 1.1.0,
when installed) beside it; ``report.py`` sums the session figures by split; ``own.py`` is ``wuu replay`` on
a user's own runs.
"""
