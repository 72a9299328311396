"""``dynamic``, statement execution: one lock-step launch of a kernel, one visitor method per
:mod:`kpl.ast` statement class ([AutoSync] Fig. 9, predicated form).

All threads of a block execute each statement in lock step; the set of enabled threads
(``act``, sorted thread ids) is the predicate.  ``if`` splits it, a loop iterates while any
thread's guard holds, ``break``/``continue``/``return`` move threads into the masks of the
enclosing :class:`_Frame`.  Barriers advance the race detector's epoch and are checked for
divergence.  Expressions and memory are :class:`oracle.dynamic.evaluator.Evaluator`.

Annotations (:class:`kpl.ast.Assert`) are checked for every enabled thread by
:mod:`oracle.dynamic.annot`; a failed one is recorded, and the run goes on.

Why one piece of ~400 lines: one visitor, one method per statement class; split, the
statement semantics of one run would be spread over modules that share all its state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kpl.ast import (
    FLOAT,
    Annotation,
    Assert,
    Assign,
    Assume,
    Barrier,
    Block,
    Break,
    Continue,
    Decl,
    ExprStmt,
    If,
    Inline,
    Kernel,
    Loop,
    MemElem,
    NamedBarrier,
    Return,
    Stmt,
    Switch,
    Var,
    VarField,
    WaitEvents,
)
from kpl.ctypes import convert, to_int
from kpl.labels import LabelTree
from kpl.placement import WARP_SIZE, BarrierKind
from oracle.base import Divergence, Witness
from oracle.dynamic.annot import AnnotationChecks
from oracle.dynamic.evaluator import Unsupported
from oracle.dynamic.races import RaceLog, byte_viewed
from oracle.dynamic.values import Dim3, Iters, linear_to_dim3, truthy

__all__ = ["AssumeFailed", "Iters", "StepLimit", "Unsupported", "_Run"]

#: statements that contain others; every other statement is one lock-step instruction
_COMPOUND = (If, Loop, Switch, Inline)


class StepLimit(Exception):
    """The run exceeded its step budget (reported at the innermost loop's label)."""

    def __init__(self, label: int) -> None:
        super().__init__("step limit")
        self.label = label


class AssumeFailed(Exception):
    """An ``__assume`` is false for some enabled thread: the run is cut there."""

    def __init__(self, label: int) -> None:
        super().__init__("assumption false")
        self.label = label


class _StopBlock(Exception):
    pass


@dataclass
class _Frame:
    """A control frame for break/continue/return masks."""

    kind: str  # "loop" | "switch" | "inline"
    brk: list[int] = field(default_factory=list)
    cont: list[int] = field(default_factory=list)
    ret: list[int] = field(default_factory=list)
    result: Var | None = None


def _merge(a: list[int], b: list[int]) -> list[int]:
    if not b:
        return a
    if not a:
        return sorted(b)
    return sorted(set(a).union(b))


class _Run(AnnotationChecks):
    """One concrete launch: the interpreter plus the race/divergence bookkeeping."""

    def __init__(self, kernel: Kernel, tree: LabelTree, params: dict[str, Any],
                 memory_inputs: dict[str, Any], seed: int, max_steps: int,
                 stop_at_divergence: bool) -> None:
        self.kernel = kernel
        self.tree = tree
        self.params = params
        self.seed = seed
        self.max_steps = max_steps
        self.stop_at_divergence = stop_at_divergence
        launch = kernel.launch
        self.T = launch.threads_per_block
        self.block_dim = launch.concrete_block()  # the checker runs representative launches
        self.grid_dim = launch.concrete_grid()
        self.tids = [linear_to_dim3(i, self.block_dim) for i in range(self.T)]
        ws = launch.warp_sync
        self.warp_sync = ws
        self.warp_of = [i // ws for i in range(self.T)] if ws else list(range(self.T))
        self.steps = 0
        self.seq = 0
        self.iter_counter = 0
        # global (and constant/texture) memory persists across blocks
        self.glob = {}
        for name, content in memory_inputs.items():
            store: dict[int, Any] = {}
            if isinstance(content, dict):
                store.update({int(k): v for k, v in content.items()})
            else:
                store.update(enumerate(content))
            self.glob[name] = store
        RaceLog.__init__(self)
        self.byte_mems = byte_viewed(kernel)
        self.divergences: dict[int, Divergence] = {}
        self.init_annotations(kernel)
        self.block = 0
        self.block_id: Dim3 = (0, 0, 0)
        self._reset_block(0)

    # ------------------------------------------------------------------ per block

    def _reset_block(self, b: int) -> None:
        self.block = b
        self.block_id = linear_to_dim3(b, self.grid_dim)
        self.shared = {}
        self.local = {}
        self.interval = {}
        self.reset_shadow()
        self.env = {}
        for pname, value in self.params.items():
            self.env[pname] = [value] * self.T
        self.frames: list[_Frame] = []
        self.iters: Iters = ()
        self.label = self.kernel.body.label
        self.builtins = {
            ("threadIdx", "x"): [t[0] for t in self.tids],
            ("threadIdx", "y"): [t[1] for t in self.tids],
            ("threadIdx", "z"): [t[2] for t in self.tids],
        }
        for name, val in (("blockIdx", self.block_id), ("blockDim", self.block_dim),
                          ("gridDim", self.grid_dim)):
            for d, v in zip("xyz", val, strict=True):
                self.builtins[(name, d)] = [v] * self.T

    def run_block(self, b: int) -> None:
        self._reset_block(b)
        try:
            self.exec_block(self.kernel.body, list(range(self.T)))
        except _StopBlock:
            pass

    def _step(self, label: int) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            loop_label = self.iters[-1][0] if self.iters else label
            raise StepLimit(loop_label)

    # ------------------------------------------------------------------ statements

    def exec_block(self, block: Block, act: list[int], keep: str | None = None) -> list[int]:
        """Run ``block``; ``keep`` names a variable declared in it that outlives it (an inlined
        call's result, read after the call): its previous value is not put back at the end,
        else a call in a loop would return the previous iteration's value."""
        saved: dict[str, list[Any]] = {}
        for stmt in block.stmts:
            if isinstance(stmt, Decl):
                name = stmt.var.name
                if (name in self.env and name not in saved and name not in self.params
                        and name != keep):
                    saved[name] = list(self.env[name])
            if act:
                act = self.exec_stmt(stmt, act)
        # C block scope: a declaration shadows an outer variable only until the block ends
        self.env.update(saved)
        return act

    def exec_stmt(self, stmt: Stmt, act: list[int]) -> list[int]:
        """Run ``stmt`` for the enabled threads; returns the threads enabled after it."""
        if not act:
            return act
        self._step(stmt.label)
        if not isinstance(stmt, _COMPOUND):
            # a leaf: one lock-step instruction instance
            self.label = stmt.label
            self.seq += 1
            if self.warp_sync:
                self.inst = {}
        return self.visit(stmt, act)  # type: ignore[no-any-return]

    def _in_frame(self, frame: _Frame, body: Block, act: list[int]) -> list[int]:
        self.frames.append(frame)
        keep = frame.result.name if frame.result is not None else None
        try:
            return self.exec_block(body, act, keep)
        finally:
            self.frames.pop()

    def visit_Switch(self, stmt: Switch, act: list[int]) -> list[int]:
        frame = _Frame("switch")
        return _merge(self._in_frame(frame, stmt.body, act), frame.brk)

    def visit_Inline(self, stmt: Inline, act: list[int]) -> list[int]:
        frame = _Frame("inline", result=stmt.result)
        return _merge(self._in_frame(frame, stmt.body, act), frame.ret)

    def visit_If(self, stmt: If, act: list[int]) -> list[int]:
        self.label = stmt.label
        cond = self.ev(stmt.cond, act)
        then_act = [t for t, c in zip(act, cond, strict=True) if truthy(c)]
        else_act = [t for t, c in zip(act, cond, strict=True) if not truthy(c)]
        out_then = self.exec_block(stmt.then, then_act) if then_act else then_act
        if stmt.els is not None and else_act:
            out_else = self.exec_block(stmt.els, else_act)
        else:
            out_else = else_act
        return _merge(out_then, out_else)

    def visit_Loop(self, stmt: Loop, act: list[int]) -> list[int]:
        """Fig. 9 (right): ``p := e; while ∃t. p { p ⇒ body; p ⇒ p := e }``."""
        outer = self.iters
        done: list[int] = []
        if stmt.test_first:
            self.label = stmt.label
            cond = self.ev(stmt.cond, act)
            running = [t for t, c in zip(act, cond, strict=True) if truthy(c)]
            done.extend(t for t, c in zip(act, cond, strict=True) if not truthy(c))
        else:
            running = act
        try:
            while running:
                self._step(stmt.label)
                self.iter_counter += 1
                self.iters = outer + ((stmt.label, self.iter_counter),)
                frame = _Frame("loop")
                self.frames.append(frame)
                try:
                    out = self.exec_block(stmt.body, running)
                    latch_act = _merge(out, frame.cont)
                    for latch in stmt.latch:
                        latch_act = self.exec_stmt(latch, latch_act)
                finally:
                    self.frames.pop()
                done.extend(frame.brk)
                if not latch_act:
                    break
                self.label = stmt.label
                cond = self.ev(stmt.cond, latch_act)
                running = [t for t, c in zip(latch_act, cond, strict=True) if truthy(c)]
                done.extend(t for t, c in zip(latch_act, cond, strict=True) if not truthy(c))
        finally:
            self.iters = outer
        return sorted(done)

    def visit_Barrier(self, stmt: Barrier, act: list[int]) -> list[int]:
        if stmt.kind is BarrierKind.SYNCWARP_MASKED:
            raise Unsupported("__syncwarp with a mask other than the full warp (0xffffffff) "
                              "is not modelled", stmt.label)
        if stmt.kind is BarrierKind.GRID:
            # blocks run one after another here, a schedule a grid barrier forbids: the
            # cross-block answers (and values read across blocks) would not be of a real run
            raise Unsupported("grid-wide barrier (grid_group::sync) is not modelled by the "
                              "dynamic oracle; use --oracle sdv", stmt.label)
        if stmt.kind.warp:
            return self._warp_barrier(stmt, act)
        self._diverges(stmt, act)
        self.epoch += 1
        for space in self.fence_epoch:
            if space in stmt.fences:
                self.fence_epoch[space] += 1
        self.interval = {}
        return act

    def _diverges(self, stmt: Barrier | WaitEvents | Assign, act: list[int]) -> None:
        """A work-group synchronisation reached by only some threads of the block."""
        if len(act) != self.T:
            if stmt.label not in self.divergences:
                enabled = set(act)
                other = next(t for t in range(self.T) if t not in enabled)
                self.divergences[stmt.label] = Divergence(
                    stmt.label, Witness(self.tids[act[0]], self.tids[other],
                                        self.block_id, self.block_id))
            if self.stop_at_divergence:
                raise _StopBlock()

    def _warp_barrier(self, stmt: Barrier, act: list[int]) -> list[int]:
        """``__syncwarp()``: every warp with an enabled lane synchronises its own lanes (its
        warp epoch advances); a warp with some but not all of its lanes enabled diverges."""
        lanes: dict[int, list[int]] = {}
        for t in act:
            lanes.setdefault(t // WARP_SIZE, []).append(t)
        for w, ts in sorted(lanes.items()):
            size = min(WARP_SIZE, self.T - w * WARP_SIZE)
            if len(ts) != size and stmt.label not in self.divergences:
                other = next(t for t in range(w * WARP_SIZE, w * WARP_SIZE + size) if t not in ts)
                self.divergences[stmt.label] = Divergence(
                    stmt.label, Witness(self.tids[ts[0]], self.tids[other],
                                        self.block_id, self.block_id))
                if self.stop_at_divergence:
                    raise _StopBlock()
            if stmt.fences:  # OpenCL's sub_group_barrier orders nothing (kpl.frontend.opencl)
                self.warp_epoch[w] = self.warp_epoch.get(w, 0) + 1
        return act

    def visit_Decl(self, stmt: Decl, act: list[int]) -> list[int]:
        if stmt.array is not None:
            store = self.local.setdefault(stmt.array.name, {})
            for t in act:
                store.pop(t, None)
            return act
        if stmt.init is not None:
            vals = self.ev(stmt.init, act)
        else:
            zero = convert(0, stmt.var.type)
            vals = [zero] * len(act)
        self._set_var(stmt.var, act, vals)
        return act

    def _set_var(self, var: Var, act: list[int], vals: list[Any]) -> None:
        slot = self.env.get(var.name)
        if slot is None:
            slot = [convert(0, var.type)] * self.T
            self.env[var.name] = slot
        t_ = var.type
        for t, v in zip(act, vals, strict=True):
            slot[t] = convert(v, t_)

    def visit_Assign(self, stmt: Assign, act: list[int]) -> list[int]:
        target = stmt.target
        if isinstance(target, Var):
            self._set_var(target, act, self.ev(stmt.value, act))
        elif isinstance(target, VarField):
            vals = self.ev(stmt.value, act)
            var = target.var
            slot = self.env.get(var.name)
            if slot is None:
                slot = [convert(0, var.type)] * self.T
                self.env[var.name] = slot
            pos = var.type.fields.index(target.name) if target.name in var.type.fields else 0
            elem = var.type.elem or FLOAT
            for t, v in zip(act, vals, strict=True):
                cur = slot[t]
                cur_t = list(cur) if isinstance(cur, tuple) else [cur] * max(1, len(var.type.fields))
                cur_t[pos] = convert(v, elem)
                slot[t] = tuple(cur_t)
        elif isinstance(target, MemElem):
            idx = self.ev(target.index, act)
            # an async copy: its indices are plain variables, its one read and its write
            # are the copy's accesses (oracle.dynamic.races._Cell); like a barrier, it is a
            # work-group function every work-item must reach
            if stmt.async_copy:
                self._diverges(stmt, act)
            self.copying = stmt.async_copy
            try:
                vals = self.ev(stmt.value, act)
                # lock-step: every enabled thread's reads above happen before any write below
                for t, i, v in zip(act, idx, vals, strict=True):
                    if target.view is not None:
                        self._write_view(target.mem, to_int(i), t, v, target.view)
                    else:
                        self._write(target.mem, to_int(i), t, v, target.field)
            finally:
                self.copying = False
        else:  # pragma: no cover - exhaustive over LValue
            raise Unsupported(f"assignment target {type(target).__name__}", stmt.label)
        return act

    def visit_ExprStmt(self, stmt: ExprStmt, act: list[int]) -> list[int]:
        self.ev(stmt.expr, act)
        return act

    def visit_Assume(self, stmt: Assume, act: list[int]) -> list[int]:
        if not all(self.holds(stmt.cond, act)):
            raise AssumeFailed(stmt.label)
        return act

    def visit_Annotation(self, stmt: Annotation, act: list[int]) -> list[int]:
        return act

    def visit_Assert(self, stmt: Assert, act: list[int]) -> list[int]:
        self.check_assert(stmt, act)
        return act

    def visit_Break(self, stmt: Break, act: list[int]) -> list[int]:
        for frame in reversed(self.frames):
            if frame.kind in ("loop", "switch"):
                frame.brk.extend(act)
                return []
        raise Unsupported("break outside a loop or switch", stmt.label)

    def visit_Continue(self, stmt: Continue, act: list[int]) -> list[int]:
        for frame in reversed(self.frames):
            if frame.kind == "loop":
                frame.cont.extend(act)
                return []
        raise Unsupported("continue outside a loop", stmt.label)

    def visit_Return(self, stmt: Return, act: list[int]) -> list[int]:
        for frame in reversed(self.frames):
            if frame.kind == "inline":
                if stmt.value is not None and frame.result is not None:
                    self._set_var(frame.result, act, self.ev(stmt.value, act))
                elif stmt.value is not None:
                    self.ev(stmt.value, act)
                frame.ret.extend(act)
                return []
        if stmt.value is not None:
            self.ev(stmt.value, act)
        return []  # the threads leave the kernel

    def visit_WaitEvents(self, stmt: WaitEvents, act: list[int]) -> list[int]:
        """OpenCL's ``wait_group_events``: completes the async copies issued before it (the
        count read by ``oracle.dynamic.races``), orders no plain access; a work-group
        function, so a non-uniform reach is barrier divergence."""
        self._diverges(stmt, act)
        if stmt.completes:
            self.waits += 1
        return act

    def visit_NamedBarrier(self, stmt: NamedBarrier, act: list[int]) -> list[int]:
        raise Unsupported("named barriers are checked by --oracle named", stmt.label)

    def generic_visit(self, node: object, *args: Any) -> Any:
        if isinstance(node, Stmt):
            raise Unsupported(f"statement {type(node).__name__} not supported", node.label)
        return super().generic_visit(node, *args)
