"""What the fix pipeline hands back: per file a :class:`FixOutcome`, per kernel a :class:`KernelFix`.

The data every stage after synthesis reads and extends -- the split and named-barrier steps,
the reports, the CLI's writing, the language server's quick-fix -- so it is a module of its
own, below all of them and above nothing but the algorithm's results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autosync.algorithm.synthesis import SynthesisResult
    from autosync.pipeline.timings import Timings
    from autosync.render.patch import Edit
    from kpl.ast import Barrier, Kernel
    from kpl.placement import Placement


@dataclass
class KernelFix:
    """The outcome of ``fix`` for one kernel of the file."""

    kernel: Kernel
    oracle: str
    result: SynthesisResult
    edits: list[Edit] = field(default_factory=list)
    #: ``fix --minimize`` (:mod:`autosync.pipeline.minimize`): what to insert when it is not
    #: the whole ``result.placement`` (None), and the developer's barriers to delete
    insert: Placement | None = None
    removed: list[Barrier] = field(default_factory=list)


@dataclass
class FixOutcome:
    """What :func:`autosync.pipeline.core.fix_kernels` found for one file: ``status`` is ``verified`` (nothing to
    insert), ``fixed`` (``patched`` is the re-parsed, re-verified text) or ``unfixable``
    (``reason`` says why); ``seconds`` and the writing are the caller's."""

    file: str
    original: str
    status: str  # verified | fixed | unfixable | error
    fixes: list[KernelFix]
    patched: str | None = None
    rendered: Any = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    #: rewrites beyond inserted barriers, as notes: statements split so that a barrier could go
    #: inside them (:mod:`autosync.pipeline.split_fix`), a named-barrier pair (:mod:`autosync.pipeline.named_fix`)
    rewrites: list[str] = field(default_factory=list)
    reparsed_verified: bool | None = None
    nvcc: str = "skipped"
    #: the barrier spelling written when it is not the one asked for (OpenCL C: ``opencl``)
    target: str | None = None
    seconds: float = 0.0
    solver: str = "rc2"
    #: where the time went (``--timings``), else None
    timings: Timings | None = None

    @property
    def races_remain(self) -> bool:
        """Races between blocks are left (no barrier orders them; ``status`` may still be
        ``fixed`` for the races inside blocks): ``fix`` exits 1."""
        return any(f.result.inter_block for f in self.fixes)
