"""``dynamic``, race detection: the shadow memory that turns the access log into races.

The interpreter (:mod:`oracle.dynamic.executor`) calls :meth:`RaceLog._access` for every access
of a shared or global cell; this stage decides, from the accesses recorded since the last
barrier, whether it races (BARRACUDA-style shadow memory, [BARRACUDA] Sec. 3.3 and 4.3.3,
simplified by lock-step execution -- see :mod:`oracle.dynamic.checker` for the full rule).  An array
that some access reaches through a pointer cast (a *byte view*, ``view`` on the KPL access,
:func:`byte_viewed`) is shadowed per BYTE, every access covering its bytes
``[offset, offset + width)``, so a byte store and a word store that share a byte conflict;
every other array keeps one shadow cell per element.  The
conflict rule itself is :func:`oracle.base.conflicts`, shared with every oracle.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from kpl.ast import ALL_FENCES, Atomic, CType, Load, MemElem, Memory, Space
from kpl.ctypes import sizeof
from kpl.labels import LabelTree
from kpl.placement import WARP_SIZE
from oracle.base import AccessKind, Race, Witness, conflicts
from oracle.dynamic.values import Dim3, Iters, linear_to_dim3

__all__ = ["UNKNOWN", "RaceLog", "byte_viewed", "value_key"]


def byte_viewed(node: object) -> set[str]:
    """Names of the arrays some access in ``node`` (a kernel) reaches through a byte view."""
    out: set[str] = set()
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, (Load, MemElem, Atomic)) and n.view is not None:
            out.add(n.mem.name)
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (type, Memory, CType)):
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return out


@dataclass
class _Cell:
    """Shadow state of one memory cell for the current epoch of the current block:
    kind -> (label, iteration vector, hardware warp, its warp epoch, value key, copy wait) ->
    {warp: one thread of that warp}.  The copy wait is, for an OpenCL async copy's access
    (``kpl.ast.Assign.async_copy``), the group's count of ``wait_group_events`` at the access
    (-1 for a plain access): a later wait completes it, so it races with nothing after that;
    until then it stays in the cell across barriers (the copy is asynchronous).  The hardware warp (linear thread id / 32) and the number of
    ``__syncwarp()`` it had executed at the access tell whether a later access of the same
    warp is ordered after it by a warp barrier; accesses of other warps are ordered only by
    the block's ``__syncthreads()`` (``epoch``).  The value key is that of a write's stored
    value (None for other kinds): two writes of one value are a benign pair, no race, unless
    ``--no-benign`` ([WarpsAtomics] Sec. 2.3).  Keeping two warps per key stays lossless: a
    new write of value v by warp w races iff some key with a value other than v holds a warp
    other than w."""

    epoch: int
    acc: dict[AccessKind, dict[tuple[int, Iters, int, int, Any, int], dict[int, int]]]

class _Unknown:
    """The value key of a write whose value is not known: it differs from every value."""

    def __repr__(self) -> str:
        return "<unknown value>"


UNKNOWN = _Unknown()


def value_key(value: Any) -> Any:
    """A hashable key equal for two stored values exactly when their bits are equal (a float
    by its double's bytes, so -0.0 and 0.0 differ and a NaN equals only its own bits)."""
    if isinstance(value, tuple):
        return tuple(value_key(v) for v in value)
    if isinstance(value, float):
        return ("f", struct.pack("<d", value))
    if isinstance(value, (int, bool)):
        return int(value)
    return UNKNOWN


@dataclass(frozen=True)
class _Access:
    label: int
    kind: AccessKind
    thread: int
    block: int
    iters: Iters
    seq: int


class RaceLog:
    """The race-detection half of a concrete run (a base class of the interpreter, whose
    position -- current label, iteration vector, block, epoch -- it reads)."""

    # state owned by the interpreter, read here
    tree: LabelTree
    tids: list[Dim3]
    grid_dim: Dim3
    warp_sync: int | None
    warp_of: list[int]
    block: int
    label: int
    iters: Iters

    def __init__(self) -> None:
        #: global cells: (array, index) -> block -> (label, kind, value key) -> one thread
        #: (cross-block races)
        self.xblock: dict[tuple[str, Hashable], dict[int, dict[tuple[int, AccessKind, Any], int]]] = {}
        #: races found, keyed by (first, second, array, kinds, depth, space)
        self.races: dict[tuple[Any, ...], Race] = {}
        #: arrays shadowed per byte (reached through a byte view somewhere in the kernel)
        self.byte_mems: set[str] = set()
        #: two writes of one value are no race (GPUVerify's default; False: --no-benign)
        self.benign = True
        #: some read saw a value another thread wrote in the same interval (or another block
        #: wrote): races after it may depend on that racy value (see oracle.sdv.memfacts)
        self.racy_read = False
        self.reset_shadow()

    def reset_shadow(self) -> None:
        """Forget the per-block shadow (a new block starts)."""
        #: per-cell accesses of the current epoch
        self.shadow: dict[tuple[str, Hashable], _Cell] = {}
        #: warp-synchronous mode: updates of one instruction instance, per cell and warp
        self.inst: dict[tuple[str, Hashable], dict[int, tuple[int, AccessKind, Any]]] = {}
        #: barrier count of the block (accesses of different epochs never race)
        self.epoch = 0
        #: per space, the count of the block's barriers that order it (OpenCL's fences,
        #: ``kpl.ast.Barrier.fences``): a cell's accesses race within one of these epochs
        self.fence_epoch: dict[Space, int] = dict.fromkeys(ALL_FENCES, 0)
        #: ``__syncwarp()`` count per hardware warp of the block (linear thread id / 32)
        self.warp_epoch: dict[int, int] = {}
        #: ``wait_group_events`` count of the block (``kpl.ast.WaitEvents``, see ``_Cell``)
        self.waits = 0
        #: the access being recorded is an async copy's (``kpl.ast.Assign.async_copy``)
        self.copying = False

    def _access(self, mem: Memory, idx: int, t: int, kind: AccessKind,
                view: CType | None = None, fld: str | None = None, value: Any = UNKNOWN) -> None:
        """Record an access of element ``idx`` of ``mem`` (its component ``fld``; byte
        ``idx`` where ``view``); ``value`` is a write's stored value.  A struct/vector
        element is shadowed per component, so writes of different fields of one element do
        not conflict."""
        if mem.name not in self.byte_mems:
            fields = mem.elem.fields if mem.elem.kind == "vec" else ()
            if fld is not None and fld in fields:
                self._cell(mem, (idx, fld), idx, t, kind, self._vkey(kind, value))
            elif fields:
                for k, f in enumerate(fields):
                    part = value[k] if isinstance(value, tuple) and k < len(value) else UNKNOWN
                    self._cell(mem, (idx, f), idx, t, kind, self._vkey(kind, part))
            else:
                self._cell(mem, idx, idx, t, kind, self._vkey(kind, value))
            return
        esize = sizeof(mem.elem)
        width = sizeof(view) if view is not None else esize
        if width is None or (view is None and esize is None):
            raise ValueError(f"no byte layout for an access of '{mem.name}'")
        start = idx if view is not None else idx * width
        shown = start // width  # the index as the user sees it: in units of the accessed type
        vkey = self._vkey(kind, value)
        if vkey is not None and vkey is not UNKNOWN:
            vkey = (start, width, vkey)  # the same bytes only from the same offset and width
        for b in range(start, start + width):
            self._cell(mem, b, shown, t, kind, vkey)

    def _vkey(self, kind: AccessKind, value: Any) -> Any:
        if kind is not AccessKind.WRITE:
            return None
        return value_key(value) if self.benign else UNKNOWN

    @staticmethod
    def _benign(kind: AccessKind, k2: AccessKind, v1: Any, v2: Any) -> bool:
        return kind is AccessKind.WRITE and k2 is AccessKind.WRITE and v1 is not UNKNOWN \
            and v1 == v2

    def _cell(self, mem: Memory, pos: Hashable, idx: int, t: int, kind: AccessKind,
              vkey: Any = None) -> None:
        """Record an access of shadow cell ``pos`` (reported as index ``idx``)."""
        key = (mem.name, pos)
        cell = self.shadow.get(key)
        epoch = self.fence_epoch.get(mem.space, self.epoch)
        if cell is None or cell.epoch != epoch:
            fresh = _Cell(epoch, {k: {} for k in AccessKind})
            if cell is not None:  # a barrier completes no async copy: only a wait does
                for k, entries in cell.acc.items():
                    fresh.acc[k].update((e, ts) for e, ts in entries.items() if e[5] >= self.waits)
            cell = fresh
            self.shadow[key] = cell
        w = self.warp_of[t]
        hw = t // WARP_SIZE
        we = self.warp_epoch.get(hw, 0)
        label, iters = self.label, self.iters
        cw = self.waits if self.copying else -1
        for k2 in AccessKind:
            if not conflicts(kind, k2):
                continue
            for (lab2, it2, hw2, we2, v2, cw2), threads in cell.acc[k2].items():
                if hw2 == hw and we2 != we:
                    continue  # a __syncwarp() of this warp lies between the two accesses
                if 0 <= cw2 < self.waits:
                    continue  # an async copy completed by a wait since
                if cw >= 0 and cw2 >= 0 and lab2 == label and it2 == iters:
                    continue  # two work-items' parts of one copy: different elements
                if self._benign(kind, k2, vkey, v2):
                    continue
                for w2, t2 in threads.items():
                    if w2 != w:
                        if kind is AccessKind.READ:
                            self.racy_read = True
                        self._report(mem, idx, _Access(lab2, k2, t2, self.block, it2, 0),
                                     _Access(label, kind, t, self.block, iters, 1), True,
                                     hw2 == hw)
                        break
        slot = cell.acc[kind].setdefault((label, iters, hw, we, vkey, cw), {})
        if w not in slot and len(slot) < 2:
            slot[w] = t
        if self.warp_sync and kind is not AccessKind.READ:
            # same warp, same instruction instance: only two updates of one cell race
            inst = self.inst.setdefault(key, {})
            prev = inst.get(w)
            if prev is not None and prev[0] != t and conflicts(prev[1], kind) \
                    and not self._benign(kind, prev[1], vkey, prev[2]):
                self._report(mem, idx, _Access(label, prev[1], prev[0], self.block, iters, 0),
                             _Access(label, kind, t, self.block, iters, 1), True)
            elif prev is None:
                inst[w] = (t, kind, vkey)
        if mem.space == Space.GLOBAL:
            per_block = self.xblock.setdefault(key, {})
            for b2, seen in per_block.items():
                if b2 == self.block:
                    continue
                for (lab2, k2, v2), t2 in seen.items():
                    if conflicts(kind, k2) and not self._benign(kind, k2, vkey, v2):
                        if kind is AccessKind.READ:
                            self.racy_read = True
                        self._report(mem, idx, _Access(lab2, k2, t2, b2, (), 0),
                                     _Access(label, kind, t, self.block, iters, 1), False)
            mine = per_block.setdefault(self.block, {})
            if (label, kind, vkey) not in mine:
                # any two different values of one label suffice: a third differs from one
                same_label = [v for (lab, k, v) in mine if lab == label and k is kind]
                if len(same_label) < 2:
                    mine[(label, kind, vkey)] = t

    def _report(self, mem: Memory, idx: int, a: _Access, b: _Access, same_block: bool,
                same_warp: bool = False) -> None:
        """Record the race of the earlier access ``a`` with ``b``, ordered by text order
        (``same_warp``: the two threads are lanes of one warp; a race seen again across warps
        loses its ``same_warp`` fact)."""
        oa, ob = self.tree.order(a.label), self.tree.order(b.label)
        first, second = (a, b) if oa <= ob else (b, a)
        depth: int | None
        if same_block:
            depth = 0
            for j, (x, y) in enumerate(zip(a.iters, b.iters, strict=False)):
                if x[0] != y[0]:
                    break
                if x[1] != y[1]:
                    depth = j + 1
                    break
        else:
            depth = None
        kinds = (first.kind, second.kind)
        key = (first.label, second.label, mem.name, kinds, depth, mem.space)
        old = self.races.get(key)
        if old is not None:
            if old.same_warp and not same_warp:
                self.races[key] = dataclasses.replace(old, same_warp=False)
            return
        bd = self.grid_dim
        self.races[key] = Race(
            first.label, second.label, mem.name, kinds, mem.space,
            Witness(self.tids[first.thread], self.tids[second.thread],
                    linear_to_dim3(first.block, bd), linear_to_dim3(second.block, bd), idx),
            depth, same_warp=same_warp)
