"""Reports: what a check or a fix found, as compiler-style text, JSON and SARIF.

Owns the messages (a race at its second access, a divergence, an unknown), their locations,
and the documents made from a verdict or from the pipeline's fix outcome.

May import: ``autosync.pipeline`` (the outcome it reports), ``autosync.algorithm`` (synthesis
results), ``oracle``, ``kpl`` and itself; no command or language-server module.
"""
