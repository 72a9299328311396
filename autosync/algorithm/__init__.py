"""The algorithm: which barriers, where, at what cost ([AutoSync] Sec. III, and beyond it).

Owns the cost model, the placement constraints, the MaxSAT back ends, Algorithm 1
(SYNTHESIZE/REFINE), the enumerative baseline, one placement under every launch, and the
searches that go further than the paper (a self-racing statement split into a read and a
write, a named-barrier arrive/sync pair, which placements a macro expansion forbids).  Each
takes kernels and verdicts and hands back data: placements, plans, reasons.

May import: ``kpl``, ``oracle`` and itself; never a pipeline, rendering, report, command or
language-server module (``tests/test_layout.py``), so the algorithm can be read, tested and
benchmarked without the machinery that runs it on a user's file.
"""
