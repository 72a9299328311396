"""The oracle interface: the paper's minimal contract between search and verification.

AutoSync ([AutoSync] Sec. V) needs only two answers from a verifier: the *race locations*
``races(kernel)`` -- pairs of leaf labels ⟨ℓ, ℓ'⟩ with ℓ ⪯ ℓ' in text order -- and the
*divergent barriers* ``divergences(kernel)``.  Everything else here is optional information an
oracle MAY give (witnesses, whether a loop race is intra- or inter-iteration, named-barrier
findings); the synthesizer must stay correct with an oracle that gives none of it.

One call to :meth:`Oracle.check` is one "oracle call" in the sense of Tables I and II: one
verification of one candidate kernel, races and divergences together.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, overload, runtime_checkable

from kpl.ast import Kernel, Space
from kpl.launch import call_text


class AccessKind(str, Enum):
    """How a statement touches a memory cell.  A ``str`` enum so that race kinds print and
    serialise as ``read`` / ``write`` / ``atomic`` (the JSON and SARIF outputs name them)."""

    READ = "read"
    WRITE = "write"
    ATOMIC = "atomic"

    def __str__(self) -> str:
        return self.value

    def __hash__(self) -> int:
        # equal to its text ("read" == AccessKind.READ), so it must hash like it: a set or
        # dict key mixing the two (an oracle still using strings) then still matches
        return str.__hash__(self)


def conflicts(a: AccessKind | str, b: AccessKind | str) -> bool:
    """Whether two accesses to one cell by different threads race (the one conflict rule of
    every oracle): at least one of them writes, and they are not both atomic
    ([WarpsAtomics] Sec. 4: atomics do not race with atomics, but do with plain accesses)."""
    a, b = AccessKind(a), AccessKind(b)
    if a is AccessKind.READ and b is AccessKind.READ:
        return False
    return not (a is AccessKind.ATOMIC and b is AccessKind.ATOMIC)


Dim3 = tuple[int, int, int]
#: a scalar parameter's value in a witness (a float only where an oracle knows it)
ParamValue = int | float | bool


def _value_text(v: ParamValue) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)


@dataclass(frozen=True)
class Witness:
    """A concrete counterexample taken from the solver's model (or the concrete run): two
    threads with their blocks, the element they meet at, and what a person needs to replay
    it -- the launch (``block_dim``, ``grid_dim``; None when the oracle does not say) and the
    values of the kernel's scalar parameters (``params``, in parameter order; pointers and
    values an oracle leaves uninterpreted, as floats in ``sdv``, are not listed: any value
    does)."""

    thread1: Dim3
    thread2: Dim3
    block1: Dim3 = (0, 0, 0)
    block2: Dim3 = (0, 0, 0)
    index: int | None = None
    block_dim: Dim3 | None = None
    grid_dim: Dim3 | None = None
    params: tuple[tuple[str, ParamValue], ...] = ()

    @property
    def inter_block(self) -> bool:
        """The two threads are in different blocks."""
        return self.block1 != self.block2

    def swapped(self) -> Witness:
        """The same witness with the two threads exchanged."""
        return dataclasses.replace(self, thread1=self.thread2, thread2=self.thread1,
                                   block1=self.block2, block2=self.block1)

    def conditions(self, language: str) -> str:
        """The launch and the parameter values, the launch spelled in the kernel's
        ``language`` (:func:`kpl.launch.call_text`): ``launch <<<64, 256>>> when n = 3,
        pitch = 0``, ``launch local_size=256 num_groups=64`` (empty when the oracle gave
        neither)."""
        parts = []
        if self.block_dim is not None and self.grid_dim is not None:
            parts.append(f"launch {call_text(self.grid_dim, self.block_dim, language)}")
        if self.params:
            parts.append("when " + ", ".join(f"{n} = {_value_text(v)}" for n, v in self.params))
        return " ".join(parts)

    def describe(self, language: str) -> str:
        """The witness in words, in the terms of the kernel's ``language``: ``threads 3 and 5
        of block 0, index 4; launch <<<1, 64>>>`` for CUDA, ``work-items 3 and 5 of group
        0, …; launch local_size=64 num_groups=1`` for OpenCL C."""
        tid = dim3_id
        item, group = ("work-items", "group") if language == "opencl" else ("threads", "block")
        where = f"of {group}s {tid(self.block1)} and {tid(self.block2)}" if self.inter_block \
            else f"of {group} {tid(self.block1)}"
        text = f"{item} {tid(self.thread1)} and {tid(self.thread2)} {where}"
        if self.index is not None:
            text += f", index {self.index}"
        cond = self.conditions(language)
        return f"{text}; {cond}" if cond else text


@dataclass(frozen=True)
class Race:
    """A race location ⟨first, second⟩: two leaf labels with first ⪯ second in text order.

    ``kinds`` are the access kinds of (first, second): ``read``, ``write`` or ``atomic``.
    Optional facts (an oracle may leave them at their defaults; the synthesizer stays correct
    without them): ``loop_depth`` is 0 for an intra-iteration race, j ≥ 1 for an
    inter-iteration race carried by the j-th shared enclosing loop (outermost = 1), None when
    the oracle does not say; ``loop_depths`` lists every depth at which the pair races (empty
    when unknown); ``cross_block`` says the race is *inter-block*: it happens only between
    threads of two different blocks (global memory), which no barrier can order -- an oracle
    that finds a same-block witness for the pair reports it as an intra-block race instead
    (a barrier may order that; a part that crosses blocks is reported again, as inter-block,
    on the kernel with the barrier); ``same_warp`` is True when EVERY racing pair of threads the
    oracle found is two lanes of one warp (same block, equal linear thread id / 32), so a
    ``__syncwarp()`` may fix it, False when some pair crosses warps (only ``__syncthreads()``
    can), None when the oracle does not say (treated as False).
    """

    first: int
    second: int
    array: str
    kinds: tuple[str, str]  # AccessKind values; a plain "read"/... is normalised on creation
    space: Space = Space.SHARED
    witness: Witness | None = None
    loop_depth: int | None = None
    loop_depths: tuple[int, ...] = ()
    cross_block: bool = False
    same_warp: bool | None = None

    def __post_init__(self) -> None:
        kinds = (AccessKind(self.kinds[0]), AccessKind(self.kinds[1]))
        object.__setattr__(self, "kinds", kinds)

    @property
    def kind(self) -> str:
        """``read-write``, ``write-read``, ``write-write``, ``atomic-write`` … in text order."""
        return f"{self.kinds[0]}-{self.kinds[1]}"

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.first, self.second, self.array)


@overload
def replayable(w: Witness, kernel: Kernel, params: Mapping[str, object]) -> Witness: ...
@overload
def replayable(w: None, kernel: Kernel, params: Mapping[str, object]) -> None: ...
def replayable(w: Witness | None, kernel: Kernel, params: Mapping[str, object]) -> Witness | None:
    """``w`` from a concrete run of ``kernel`` (the ``dynamic`` and ``named`` oracles) with
    the run's launch and the scalar parameter values it used (``params``; values that are not
    numbers, a parameter the run left symbolic, are not listed), so that a person can replay it."""
    if w is None:
        return None
    values = tuple((p.name, v) for p in kernel.params
                   if isinstance(v := params.get(p.name), (int, float, bool)))
    launch = kernel.launch  # a concrete run's launch is concrete (kpl.launch.representative)
    return dataclasses.replace(w, block_dim=None if launch.symbolic else launch.concrete_block(),
                               grid_dim=None if launch.symbolic else launch.concrete_grid(),
                               params=values)


#: why a race between blocks stays, by language: CUDA has a grid barrier, which ``fix`` writes
#: only for a cooperative launch (``--grid-sync``); OpenCL C has none across work-groups
_INTER_BLOCK_WHY = {
    "cuda": "no block barrier can order it; a grid barrier can: launch the kernel cooperatively "
            "(cudaLaunchCooperativeKernel) and run fix with --grid-sync",
    "opencl": "no barrier can order it (OpenCL C has no barrier across work-groups)",
}


def inter_block_why(language: str = "cuda") -> str:
    """Why a race between blocks stays, in ``language``'s words (:data:`_INTER_BLOCK_WHY`)."""
    return _INTER_BLOCK_WHY["opencl" if language == "opencl" else "cuda"]


def inter_block_message(race: Race, language: str = "cuda") -> str:
    """``race between blocks 3 and 5 on 'x': no block barrier can order it; a grid barrier
    can: …`` -- what ``fix`` says of a race between blocks (``Race.cross_block``) it leaves;
    in OpenCL C's words (work-groups, no barrier at all) for an OpenCL kernel."""
    w = race.witness
    group = "work-groups" if language == "opencl" else "blocks"
    ids = f" {dim3_id(w.block1)} and {dim3_id(w.block2)}" if w is not None and w.inter_block else ""
    return f"race between {group}{ids} on '{race.array}': {inter_block_why(language)}"


def dim3_id(d: Dim3) -> str:
    """A thread or block id as messages write it: ``5``, or ``(1,2,0)`` for 2-D and 3-D."""
    return str(d[0]) if d[1:] == (0, 0) else "(" + ",".join(map(str, d)) + ")"


@dataclass(frozen=True)
class Divergence:
    """A barrier (label) that may be reached by non-uniform control flow."""

    label: int
    witness: Witness | None = None


@dataclass(frozen=True)
class Unknown:
    """The oracle could not decide (a loop it cannot treat soundly, a solver time-out).  An
    unknown is never a pass."""

    reason: str
    label: int | None = None
    line: int | None = None


#: the most threads a block an executing oracle (dynamic, named) runs: each thread is run
#: concretely, so a launch analysed as written far past CUDA's 1,024 (GPUVerify's files ask for
#: 262,144) would take minutes a statement; such a launch is an "unknown" that says so
MAX_EXECUTED_THREADS = 16384


def too_big_to_execute(kernel: Kernel, oracle: str) -> Unknown | None:
    """The "unknown" of an executing oracle asked to run a block of more than
    :data:`MAX_EXECUTED_THREADS` threads (None: small enough)."""
    n = kernel.launch.threads_per_block
    if n <= MAX_EXECUTED_THREADS:
        return None
    items = "work-items a work-group" if kernel.language == "opencl" else "threads a block"
    return Unknown(f"the launch has {n} {items}; the {oracle} oracle runs every one and stops at "
                   f"{MAX_EXECUTED_THREADS}: use --oracle sdv (symbolic, any launch size)")


@dataclass(frozen=True)
class Finding:
    """Any other error an oracle reports (named-barrier deadlock, recycling, count mismatch…).
    ``labels`` are the statements involved; ``detail`` is free text (threads, warps, ids)."""

    kind: str
    message: str
    labels: tuple[int, ...] = ()
    barrier_id: int | None = None


#: what an :class:`kpl.ast.Assert` of each kind checks, for messages
ASSERTION_WHAT = {"assert": "assertion", "requires": "precondition (__requires) of the called "
                  "function", "ensures": "postcondition (__ensures)",
                  "invariant": "loop invariant", "barrier_invariant": "barrier invariant",
                  "global_assert": "global assertion (__global_assert)",
                  "global_ensures": "postcondition (__global_ensures)",
                  "global_requires": "precondition (__global_requires) of the called function",
                  "null": "null dereference check",
                  "bounds": "array-bounds check (--check-array-bounds)",
                  "funcptr": "null function pointer check (the called pointer names a "
                             "device function)"}


def one_per_line(unknowns: list[Unknown]) -> list[Unknown]:
    """``unknowns`` with one per (reason, line): the same reason at several labels of one
    line (an unsupported annotation checked at loop entry and latch) is one message."""
    seen: set[tuple[str, object]] = set()
    out = []
    for u in unknowns:
        at = (u.reason, u.line if u.line is not None else ("label", u.label))
        if at not in seen:
            seen.add(at)
            out.append(u)
    return out


def assertion_finding(kind: str, label: int, witness: Witness | None) -> Finding:
    """The :class:`Finding` of an assertion that fails (kind ``assertion``: an error of its
    own, not a race; ``fix`` cannot repair it)."""
    what = ASSERTION_WHAT.get(kind, "assertion")
    text = f"{what} might not hold"
    if witness is not None:
        text += f": it fails for thread {dim3_id(witness.thread1)} of block {dim3_id(witness.block1)}"
    return Finding("assertion", text, (label,))


@dataclass
class Verdict:
    """Everything one oracle call found about one kernel.

    ``uniform_guards`` is an optional fact (empty when the oracle does not say): the labels of
    ``if`` statements whose guard the oracle PROVED true for every thread that reaches them,
    under the launch and the ``__requires`` (``if (ix < imageW)`` with ``imageW`` the grid's
    width).  A barrier inside such an ``if`` runs exactly as often as one before it, so the
    cost model need not discount it (:class:`autosync.cost.CostModel`).  Only a proof may put a
    label here; the synthesizer stays correct without the fact.
    """

    races: list[Race] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)
    unknowns: list[Unknown] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    queries: int = 0
    seconds: float = 0.0
    uniform_guards: frozenset[int] = frozenset()

    @property
    def verified(self) -> bool:
        return not (self.races or self.divergences or self.unknowns or self.findings)

    @property
    def inter_block(self) -> list[Race]:
        """The races between blocks only (``Race.cross_block``): no barrier can order them."""
        return [r for r in self.races if r.cross_block]

    @property
    def intra_block(self) -> list[Race]:
        """The races a block barrier may order (two threads of one block)."""
        return [r for r in self.races if not r.cross_block]

    @property
    def verified_within_blocks(self) -> bool:
        """Nothing is left that a barrier could fix or that stops a verdict: every remaining
        problem is an inter-block race."""
        return not (self.intra_block or self.divergences or self.unknowns or self.findings)


class OracleError(Exception):
    """The oracle cannot analyse this kernel at all (unsupported construct, time-out)."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None,
                 timeout: bool = False) -> None:
        super().__init__(message)
        #: solver queries asked before the oracle gave up (None: not counted)
        self.queries: int | None = None
        self.line = line
        self.col = col
        self.timeout = timeout


#: what every oracle assumes about the executions it judges, beyond the launch and the
#: ``__requires`` of the kernel: one line each, for ``--explain`` (and the README).  A race
#: that needs one of these to be false is no race of a defined execution.
ASSUMPTIONS: tuple[str, ...] = (
    "no signed integer overflow: signed +, -, *, / and unary - never overflow (undefined "
    "behaviour in C and C++); unsigned arithmetic wraps modulo 2^N",
    "no out-of-range unsigned sum converted to a signed type: an unsigned sum of two values "
    "that each fit in the signed type fits too when converted to it (int i; i += blockDim.x * "
    "gridDim.x); other conversions to a signed type keep the low bits",
    "a launch has fewer than 2^31 threads in each dimension (blockDim * gridDim < 2^31), so "
    "a global thread index such as blockIdx.x * blockDim.x + threadIdx.x fits in an int",
)


@runtime_checkable
class Oracle(Protocol):
    """A correctness oracle.  Implementations are found by name through
    :func:`oracle.registry.get_oracle`.

    Contract:
      * ``check`` is sound: if it returns a verdict with no races/divergences/unknowns/findings,
        the kernel is correctly synchronized for the kernel's launch and assumptions.
      * every :class:`Race` has ``first`` ⪯ ``second`` in text order and names leaf labels.
      * ``races``/``divergences`` are conveniences over ``check``.
    """

    name: str

    def check(self, kernel: Kernel) -> Verdict: ...

    def races(self, kernel: Kernel) -> list[Race]: ...

    def divergences(self, kernel: Kernel) -> list[int]: ...


class OracleBase:
    """Shared conveniences: ``races``/``divergences`` derived from ``check``."""

    name = "base"

    def check(self, kernel: Kernel) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def races(self, kernel: Kernel) -> list[Race]:
        return self.check(kernel).races

    def divergences(self, kernel: Kernel) -> list[int]:
        return [d.label for d in self.check(kernel).divergences]
