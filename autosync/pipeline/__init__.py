"""The spine: one check/fix pipeline under every command and the language server.

Owns how a file becomes kernels (options, project configuration, compile commands, host
launches), which oracle judges them, the fix with its end-to-end check (synthesis, the
split and named-barrier steps after an unfixable outcome, rendering, re-parse, re-verify,
nvcc), how a run is guarded (worker thread, Ctrl-C, timeout, progress), reading and writing
the user's file, and the errors every front end turns into its own messages.

May import: ``autosync.algorithm``, ``autosync.render``, ``oracle``, ``kpl`` and itself;
nothing here prints, exits or formats a report.
"""
