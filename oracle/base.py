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

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, runtime_checkable

from kpl.ast import Kernel, Space


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


@dataclass(frozen=True)
class Witness:
    """A concrete counterexample taken from the solver's model (or the concrete run)."""

    thread1: tuple[int, int, int]
    thread2: tuple[int, int, int]
    block1: tuple[int, int, int] = (0, 0, 0)
    block2: tuple[int, int, int] = (0, 0, 0)
    index: int | None = None
    #: (blockDim, gridDim) of the witness when the launch was symbolic (kpl.launch): the
    #: sizes under which the race happens; None when the launch was given
    launch: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None

    def describe(self) -> str:
        def tid(t: tuple[int, int, int]) -> str:
            return str(t[0]) if t[1:] == (0, 0) else "(" + ",".join(map(str, t)) + ")"

        same_block = self.block1 == self.block2
        where = f"of block {tid(self.block1)}" if same_block else (
            f"of blocks {tid(self.block1)} and {tid(self.block2)}")
        text = f"threads {tid(self.thread1)} and {tid(self.thread2)} {where}"
        if self.index is not None:
            text += f", index {self.index}"
        if self.launch is not None:
            def dims(d: tuple[int, int, int]) -> str:
                return str(d[0]) if d[1:] == (1, 1) else "[" + ",".join(map(str, d)) + "]"

            text += f", blockDim={dims(self.launch[0])} gridDim={dims(self.launch[1])}"
        return text


@dataclass(frozen=True)
class Race:
    """A race location ⟨first, second⟩: two leaf labels with first ⪯ second in text order.

    ``kinds`` are the access kinds of (first, second): ``read``, ``write`` or ``atomic``.
    Optional facts (an oracle may leave them at their defaults; the synthesizer stays correct
    without them): ``loop_depth`` is 0 for an intra-iteration race, j ≥ 1 for an
    inter-iteration race carried by the j-th shared enclosing loop (outermost = 1), None when
    the oracle does not say; ``loop_depths`` lists every depth at which the pair races (empty
    when unknown); ``cross_block`` says the race is between threads of two different blocks,
    which no barrier can order; ``same_warp`` is True when EVERY racing pair of threads the
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
                  "invariant": "loop invariant",
                  "null": "null dereference check"}


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
        t, b = witness.thread1, witness.block1
        tid = str(t[0]) if t[1:] == (0, 0) else "(" + ",".join(map(str, t)) + ")"
        bid = str(b[0]) if b[1:] == (0, 0) else "(" + ",".join(map(str, b)) + ")"
        text += f": it fails for thread {tid} of block {bid}"
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


class OracleError(Exception):
    """The oracle cannot analyse this kernel at all (unsupported construct, time-out)."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None,
                 timeout: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.col = col
        self.timeout = timeout


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
