"""Static facts of the SDV memory model, computed once per kernel.

Stage: what the value model of :mod:`oracle.sdv.memory` may assume about an array, decided
from the kernel text alone:

* **read-only arrays** (no store, no atomic anywhere): every read of one cell sees the same
  value, for every thread and at every time.
* **equal reads** (the equality abstraction, [WarpsAtomics] Sec. 2.3): under SDV semantics
  ([AutoSync] Sec. III-A) a thread's read of a cell sees its own last write in the barrier
  interval, else the value the cell had when the interval began -- the same value for every
  thread of the block.  A real execution that races has a *first* conflicting access; every
  read before it obeys this rule, so a model that assumes it still finds that first race
  (races that only occur after a racy read may be hidden behind it; the kernel is reported
  racy either way).  The rule does not hold where warps order accesses without a block
  barrier (``--warp-sync``, ``__syncwarp`` in a block of several warps, named barriers):
  there reads stay adversarial.
* **repetition-free counters** ([WarpsAtomics] Sec. 4.2): an integer array updated only by
  ``atomicAdd``/``atomic_inc`` with positive constants (or only by ``atomicSub``/
  ``atomic_dec``, or only by ``atomicInc``/``atomicDec`` with one constant limit L) hands
  out distinct old values to two threads in one barrier interval.  Unlike GPUVerify we do
  not ignore overflow: no such atomic may lie in a loop, and the number of calls the launch
  can make (threads x atomics) must stay below the wrap-around (2^bits / increment, or
  L + 1 for a limit) -- otherwise nothing is assumed.  Plain accesses of the counter in the
  same interval race with the atomics and are reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kpl import ast as K
from kpl.ast import Space
from kpl.placement import WARP_SIZE
from oracle.sdv.state import stmt_exprs, strip_casts

_UP = {"atomicAdd", "atomic_add"}
_DOWN = {"atomicSub", "atomic_sub"}


@dataclass
class MemFacts:
    """What the memory model may assume about the arrays of one kernel."""

    read_only: set[str] = field(default_factory=set)   # never stored to nor updated atomically
    equal_reads: bool = True                           # the equality abstraction applies
    counters: set[str] = field(default_factory=set)    # repetition-free atomic counters


def _atomics(kernel: K.Kernel) -> list[tuple[K.Atomic, int]]:
    """Every atomic of the kernel with the number of loops around it."""
    out: list[tuple[K.Atomic, int]] = []

    def walk(stmts: list[K.Stmt], depth: int) -> None:
        for s in stmts:
            inner = depth + 1 if isinstance(s, K.Loop) else depth
            for e in stmt_exprs(s):
                out.extend((x, inner) for x in K.walk_expr(e) if isinstance(x, K.Atomic))
            for sub in _blocks(s):
                walk(sub.stmts, inner)
            if isinstance(s, K.Loop):
                walk(list(s.latch), inner)

    walk(kernel.body.stmts, 0)
    return out


def _blocks(s: K.Stmt) -> list[K.Block]:
    out = []
    for name in ("then", "els", "body"):
        b = getattr(s, name, None)
        if isinstance(b, K.Block):
            out.append(b)
    return out


def _family(a: K.Atomic) -> tuple[str, int] | None:
    """(family, step) of a repetition-free atomic; None for any other."""
    name = a.op
    if a.view is not None or a.mem.elem.kind != "int":
        return None
    if name in ("atomic_inc", "atomic_dec") and not a.args:
        return ("up" if name == "atomic_inc" else "down", 1)
    if not a.args:
        return None
    arg = strip_casts(a.args[0])
    if not isinstance(arg, K.Const) or not isinstance(arg.value, int):
        return None
    v = int(arg.value)
    if name in _UP and v > 0:
        return ("up", v)
    if name in _DOWN and v > 0:
        return ("down", v)
    if name in ("atomicInc", "atomicDec") and v >= 0:
        return (f"{name}:{v}", v)
    return None


def _block_wide(s: K.Barrier, kernel: K.Kernel) -> bool:
    """Does barrier ``s`` order every thread of the block?  ``__syncthreads()``; and a
    full-mask ``__syncwarp()`` where the block is one warp (all its threads are the lanes it
    names: the interval it starts is the same for every thread, so the equality abstraction
    holds across it).  A partial mask or a block of several warps does not."""
    kind = s.kind.name
    if kind == "SYNCTHREADS":
        return True
    return kind == "SYNCWARP" and kernel.launch.threads_per_block <= WARP_SIZE


def mem_facts(kernel: K.Kernel) -> MemFacts:
    facts = MemFacts()
    written: set[str] = set()
    for s in K.walk_stmts(kernel.body):
        if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem):
            written.add(s.target.mem.name)
        if isinstance(s, (K.NamedBarrier, K.WaitEvents)):  # copies change cells mid-interval
            facts.equal_reads = False
        if isinstance(s, K.Barrier) and not _block_wide(s, kernel):
            facts.equal_reads = False
    if kernel.launch.warp_sync or kernel.uses_named_barriers:
        facts.equal_reads = False
    atomics = _atomics(kernel)
    written |= {a.mem.name for a, _ in atomics}
    facts.read_only = {m.name for m in kernel.memories.values()} - written
    by_mem: dict[str, list[tuple[K.Atomic, int]]] = {}
    for a, depth in atomics:
        by_mem.setdefault(a.mem.name, []).append((a, depth))
    launch = kernel.launch
    for name, uses in by_mem.items():
        fams = [_family(a) for a, _ in uses]
        if any(f is None for f in fams) or any(d > 0 for _, d in uses):
            continue
        kinds = {f[0] for f in fams if f is not None}
        if len(kinds) != 1:
            continue
        kind = kinds.pop()
        mem = uses[0][0].mem
        threads = launch.threads_per_block
        if mem.space == Space.GLOBAL:
            threads *= launch.blocks
        calls = threads * len(uses)
        bits = mem.elem.bits or 32
        if kind in ("up", "down"):
            ok = calls * max(f[1] for f in fams if f is not None) < 2 ** bits
        else:
            ok = calls <= fams[0][1] + 1 if fams[0] is not None else False  # type: ignore[index]
        if ok:
            facts.counters.add(name)
    return facts


__all__ = ["MemFacts", "mem_facts"]
