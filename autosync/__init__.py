"""AutoSync: find the races of a CUDA kernel with an oracle and synthesize the cheapest barriers.

Six packages, each importing only those below it (checked by ``tests/test_layout.py``)::

    commands, lsp        the doors: the ``autosync`` CLI, batch runs, compare, bench; the language server
    report               what a run found, as text, JSON and SARIF
    pipeline             the spine: file -> kernels -> oracle -> synthesis -> rendered, re-verified text
    render               a placement as edits of the user's original text
    algorithm            cost, constraints, MaxSAT, Algorithm 1 and the searches beyond it
    (oracle, kpl)        the verifiers; the front end and the KPL AST
"""

import time as _time

#: when the package was first imported: ``--timings`` counts the command line's imports from here
STARTED = _time.perf_counter()
