"""``dynamic``: a concrete-execution race and barrier-divergence checker.

Why a second oracle: the bundled ``sdv`` verifier is a symbolic two-thread reduction; a bug in
its encoding silently turns into a wrong ``autosync fix``.  This oracle runs the kernel
*concretely* under the same semantics -- synchronous, delayed visibility (SDV, Sec. III-A of
papers/003, predicated form of Fig. 9) -- for EVERY thread of one or two blocks, and reports
exactly the races and divergent barriers of that one run.  It is therefore never a proof
(one input, one or two blocks), but every race it reports is real for that launch and input,
which is what the differential test (``tests/test_differential.py``) exploits: whatever
``dynamic`` finds, a sound ``sdv`` must report at the same label pair.

Execution model (Fig. 9 of papers/003):

* All threads of a block execute each statement in lock step; each thread has a predicate.
  A statement executed with every predicate false has no effect, so the interpreter skips it.
  Expressions are evaluated *vectorised*: one Python evaluation of an expression node yields
  the values of all enabled threads (reads of one lock-step instruction happen before its
  writes, as on the hardware).
* ``if``: the then-block runs with the threads whose guard holds, the else-block with the
  others.  A loop iterates while its guard holds for ANY thread; ``break``/``continue``/
  ``return`` remove threads from the enabled set (per-thread masks); threads that executed
  ``continue`` are re-enabled before :attr:`kpl.ast.Loop.latch`, threads that executed
  ``break`` after the loop.  A ``Switch`` is a loop that runs once; an ``Inline`` block is a
  ``__device__`` function whose ``Return`` stores ``result`` and leaves the block.  ``&&``,
  ``||`` and ``?:`` short-circuit per thread (only the chosen operand's reads happen).
* Blocks are independent: block 0 runs to completion, then block 1 (one legal schedule).

Race detection (BARRACUDA-style shadow memory, papers/004 Sec. 3.3 and 4.3.3, simplified by
lock-step execution): a block-wide *epoch* counter advances at every barrier that is executed
by at least one thread.  Per memory cell the shadow keeps the accesses of the current epoch
as ``kind -> (label, iteration vector) -> {warp: thread}``.  A new access by thread ``t``
races with a recorded access by another thread when at least one writes, not both are atomic
(papers/001 Def. 2.2), and no barrier separates them (same epoch).  Global memory additionally
keeps, per cell and block, every ``(label, kind)`` ever seen: accesses of two different blocks
always race (a barrier orders neither).  Compressing the thread set per key to two entries of
distinct warps is lossless for *which label pairs race*; the iteration vector (one fresh id per
loop iteration, outermost first) gives the optional ``loop_depth`` fact: 0 when the two
accesses lie in the same iteration of every shared loop, ``j`` when they first differ at the
``j``-th shared loop (outermost = 1), as used by Alg. 1's P^j variables.

Warp-synchronous mode (``launch.warp_sync = N``, papers/001 Sec. 3): threads of one warp are
ordered by every instruction, so pairs within one warp never race across statements, and
within one statement instance only two *writes* of the same cell race (the "re-sync" method).

Barrier divergence (papers/003 Sec. III-A; BARRACUDA's BAR rule, papers/004 Sec. 3.3.2): a
barrier executed while some but not all threads of the block are enabled -- including threads
that returned early.  A barrier with no enabled thread is not executed at all (it neither
diverges nor synchronizes, as on the hardware).  A divergent barrier still advances the epoch
(the enabled threads synchronise), unless ``stop_at_divergence=True``, which ends the block's
run at the first divergence so that every reported race precedes it.

Inputs: scalar parameters are drawn (seeded) from small values, values derived from the launch
and random ones, until ``kernel.requires`` holds; failing that, the ``==`` conjuncts of the
requirements are solved by substitution.  Never-written memory cells and uninitialised
locals read as deterministic pseudo-random values (memory) or 0 (locals).
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kpl.ast import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    Annotation,
    Assign,
    Assume,
    Atomic,
    Barrier,
    Binary,
    Block,
    Break,
    Builtin,
    Call,
    Cast,
    Cond,
    Const,
    Continue,
    CType,
    Decl,
    Expr,
    ExprStmt,
    Field,
    If,
    Inline,
    Kernel,
    Load,
    Loop,
    MemElem,
    Memory,
    NamedBarrier,
    Return,
    Space,
    Stmt,
    Switch,
    Unary,
    Var,
    VarField,
    VecInit,
    walk_stmts,
)
from kpl.labels import LabelTree
from oracle.base import Divergence, OracleBase, Race, Unknown, Verdict, Witness

READ = "read"
WRITE = "write"
ATOMIC = "atomic"
#: kinds a new access of the given kind conflicts with (papers/001 Def. 2.2)
_CONFLICTS: dict[str, tuple[str, ...]] = {
    READ: (WRITE, ATOMIC),
    WRITE: (READ, WRITE, ATOMIC),
    ATOMIC: (READ, WRITE),
}

Dim3 = tuple[int, int, int]
Iters = tuple[tuple[int, int], ...]


# --------------------------------------------------------------------------- values


def _h(*parts: object) -> int:
    """A deterministic 64-bit hash (Python's ``hash`` of strings is salted per process)."""
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


def _f32(v: float) -> float:
    try:
        return float(struct.unpack("f", struct.pack("f", v))[0])
    except OverflowError:
        return math.copysign(math.inf, v)


def _wrap_int(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _to_int(v: Any) -> int:
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return 0
        return int(v)  # C truncation toward zero
    if isinstance(v, tuple):
        return _to_int(v[0]) if v else 0
    if v is None:
        return 0
    return int(v)


def convert(v: Any, t: CType) -> Any:
    """C conversion of ``v`` to type ``t``: integers wrap to their width and signedness,
    ``float`` rounds to single precision, ``bool`` normalises to 0/1."""
    kind = t.kind
    if kind == "int":
        return _wrap_int(_to_int(v), t.bits or 32, t.signed)
    if kind == "bool":
        if isinstance(v, tuple):
            v = v[0] if v else 0
        return 1 if v else 0
    if kind == "float":
        if isinstance(v, tuple):
            v = v[0] if v else 0.0
        f = float(v) if v is not None else 0.0
        return _f32(f) if t.bits == 32 else f
    if kind == "ptr":
        return _wrap_int(_to_int(v), 64, True)
    if kind == "vec":
        elem = t.elem or FLOAT
        n = len(t.fields) or 1
        if isinstance(v, tuple):
            parts = list(v[:n]) + [0] * (n - len(v))
        else:
            parts = [v] * n
        return tuple(convert(p, elem) for p in parts)
    return v


def _promote(t: CType) -> CType:
    if t.kind in ("bool",) or (t.kind == "int" and t.bits < 32):
        return INT
    if t.kind == "ptr":
        return LONG
    if t.kind not in ("int", "float", "vec"):
        return INT
    return t


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions of C (C11 6.3.1.8) on two operand types."""
    if a.kind == "vec":
        return a
    if b.kind == "vec":
        return b
    if a.kind == "float" or b.kind == "float":
        bits = max(t.bits for t in (a, b) if t.kind == "float")
        return DOUBLE if bits == 64 else FLOAT
    a, b = _promote(a), _promote(b)
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    uns, sig = (a, b) if not a.signed else (b, a)
    if uns.bits >= sig.bits:
        return uns
    return sig


def _default_value(t: CType, *key: object) -> Any:
    """A deterministic pseudo-random value of type ``t`` (never-written memory, opaque calls).
    Integers are kept small (0..255) so that values used as indices or loop bounds stay sane."""
    h = _h(*key)
    if t.kind == "int":
        return convert(h % 256, t)
    if t.kind == "bool":
        return h & 1
    if t.kind == "float":
        return convert((h % 1_000_000) / 1_000_000.0, t)
    if t.kind == "vec":
        elem = t.elem or FLOAT
        return tuple(_default_value(elem, *key, f) for f in (t.fields or ("x",)))
    if t.kind == "ptr":
        return 0
    return 0


def _truthy(v: Any) -> bool:
    if isinstance(v, tuple):
        return any(_truthy(p) for p in v)
    return bool(v)


# --------------------------------------------------------------------------- operators


def _int_div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _arith(op: str, a: Any, b: Any, t: CType) -> Any:
    """``a op b`` computed in type ``t`` (operands already converted to ``t``)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        at = a if isinstance(a, tuple) else (a,) * len(b)
        bt = b if isinstance(b, tuple) else (b,) * len(a)
        elem = t.elem if t.kind == "vec" and t.elem is not None else FLOAT
        return tuple(_arith(op, x, y, elem) for x, y in zip(at, bt, strict=False))
    if t.kind == "float":
        fa, fb = float(a), float(b)
        try:
            if op == "+":
                r = fa + fb
            elif op == "-":
                r = fa - fb
            elif op == "*":
                r = fa * fb
            elif op == "/":
                if fb == 0.0:
                    r = math.nan if fa == 0.0 or math.isnan(fa) else math.copysign(math.inf, fa) * (
                        math.copysign(1.0, fb))
                else:
                    r = fa / fb
            elif op == "%":
                r = math.fmod(fa, fb) if fb != 0.0 else math.nan
            else:
                r = float(_arith(op, _to_int(fa), _to_int(fb), LONG))
        except (OverflowError, ValueError):
            r = math.nan
        return convert(r, t)
    ia, ib = int(a), int(b)
    bits = t.bits or 32
    if op == "+":
        r = ia + ib
    elif op == "-":
        r = ia - ib
    elif op == "*":
        r = ia * ib
    elif op == "/":
        r = _int_div(ia, ib)
    elif op == "%":
        r = ia - ib * _int_div(ia, ib) if ib != 0 else 0
    elif op == "<<":
        r = ia << (ib % bits)
    elif op == ">>":
        r = ia >> (ib % bits)
    elif op == "&":
        r = ia & ib
    elif op == "|":
        r = ia | ib
    elif op == "^":
        r = ia ^ ib
    else:
        raise ValueError(f"unknown operator {op!r}")
    return _wrap_int(r, bits, t.signed)


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

_MATH1: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "exp": math.exp, "exp2": lambda x: 2.0 ** x, "exp10": lambda x: 10.0 ** x,
    "log": math.log, "log2": math.log2, "log10": math.log10, "log1p": math.log1p,
    "expm1": math.expm1, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh,
    "tanh": math.tanh, "fabs": abs, "floor": math.floor, "ceil": math.ceil,
    "trunc": math.trunc, "round": lambda x: math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5),
    "rint": round, "nearbyint": round, "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "cbrt": lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x), "erf": math.erf,
    "erfc": math.erfc, "saturate": lambda x: min(max(x, 0.0), 1.0),
}
_MATH2: dict[str, Callable[[float, float], float]] = {
    "pow": math.pow, "fmin": min, "fmax": max, "fmod": math.fmod, "atan2": math.atan2,
    "fdividef": lambda a, b: a / b, "hypot": math.hypot, "fdim": lambda a, b: max(a - b, 0.0),
    "copysign": math.copysign,
}


def _math_name(name: str) -> str:
    base = name.lstrip("_")
    for suffix in ("_rn", "_rz", "_ru", "_rd"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if base.endswith("f") and base[:-1] in _MATH1.keys() | _MATH2.keys():
        base = base[:-1]
    return base


def call_value(name: str, args: Sequence[Any], t: CType) -> Any:
    """The value of an opaque call: real math for the common math functions, otherwise a
    deterministic hash of the name and arguments (a pure function, as Call's contract says)."""
    if t.kind == "vec" and name.startswith("make_"):
        return convert(tuple(args), t)
    base = _math_name(name)
    try:
        if base in ("min", "max", "umin", "umax", "llmin", "llmax") and len(args) == 2:
            r: Any = min(args[0], args[1]) if "min" in base else max(args[0], args[1])
            return convert(r, t)
        if base in ("abs", "llabs", "labs") and len(args) == 1:
            return convert(abs(args[0]), t)
        if base in _MATH1 and len(args) == 1 and not isinstance(args[0], tuple):
            return convert(_MATH1[base](float(args[0])), t)
        if base in _MATH2 and len(args) == 2 and not isinstance(args[0], tuple):
            return convert(_MATH2[base](float(args[0]), float(args[1])), t)
        if base in ("mul24", "umul24") and len(args) == 2:
            return convert(_to_int(args[0]) * _to_int(args[1]), t)
        if base == "popc" and len(args) == 1:
            return convert(bin(_to_int(args[0]) & 0xFFFFFFFF).count("1"), t)
        if base == "popcll" and len(args) == 1:
            return convert(bin(_to_int(args[0]) & (2**64 - 1)).count("1"), t)
        if base == "clz" and len(args) == 1:
            return convert(32 - (_to_int(args[0]) & 0xFFFFFFFF).bit_length(), t)
        if base == "ffs" and len(args) == 1:
            v = _to_int(args[0]) & 0xFFFFFFFF
            return convert((v & -v).bit_length(), t)
        if base == "fmaf" or base == "fma":
            return convert(float(args[0]) * float(args[1]) + float(args[2]), t)
    except (ValueError, OverflowError, ZeroDivisionError, TypeError, IndexError):
        return convert(math.nan, t) if t.kind == "float" else convert(0, t)
    return _default_value(t, "call", name, tuple(args))


# --------------------------------------------------------------------------- run state


class _StepLimit(Exception):
    def __init__(self, label: int) -> None:
        super().__init__("step limit")
        self.label = label


class _AssumeFailed(Exception):
    def __init__(self, label: int) -> None:
        super().__init__("assumption false")
        self.label = label


class _StopBlock(Exception):
    pass


class _Unsupported(Exception):
    def __init__(self, message: str, label: int | None) -> None:
        super().__init__(message)
        self.label = label


@dataclass
class _Frame:
    """A control frame for break/continue/return masks."""

    kind: str  # "loop" | "switch" | "inline"
    brk: list[int] = field(default_factory=list)
    cont: list[int] = field(default_factory=list)
    ret: list[int] = field(default_factory=list)
    result: Var | None = None


@dataclass
class _Cell:
    """Shadow state of one memory cell for the current epoch of the current block."""

    epoch: int
    acc: dict[str, dict[tuple[int, Iters], dict[int, int]]]


@dataclass(frozen=True)
class _Access:
    label: int
    kind: str
    thread: int
    block: int
    iters: Iters
    seq: int


def _merge(a: list[int], b: list[int]) -> list[int]:
    if not b:
        return a
    if not a:
        return sorted(b)
    return sorted(set(a).union(b))


def _linear_to_dim3(i: int, dims: tuple[int, int, int]) -> Dim3:
    x, y, _ = dims
    return (i % x, (i // x) % y, i // (x * y))


class _Run:
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
        self.block_dim = launch.block_dim
        self.grid_dim = launch.grid_dim
        self.tids = [_linear_to_dim3(i, self.block_dim) for i in range(self.T)]
        ws = launch.warp_sync
        self.warp_sync = ws
        self.warp_of = [i // ws for i in range(self.T)] if ws else list(range(self.T))
        self.steps = 0
        self.seq = 0
        self.iter_counter = 0
        # global (and constant/texture) memory persists across blocks
        self.glob: dict[str, dict[int, Any]] = {}
        for name, content in memory_inputs.items():
            store: dict[int, Any] = {}
            if isinstance(content, dict):
                store.update({int(k): v for k, v in content.items()})
            else:
                store.update(enumerate(content))
            self.glob[name] = store
        self.xblock: dict[tuple[str, int], dict[int, dict[tuple[int, str], int]]] = {}
        self.races: dict[tuple[Any, ...], Race] = {}
        self.divergences: dict[int, Divergence] = {}
        self.block = 0
        self.block_id: Dim3 = (0, 0, 0)
        self._reset_block(0)

    # ------------------------------------------------------------------ per block

    def _reset_block(self, b: int) -> None:
        self.block = b
        self.block_id = _linear_to_dim3(b, self.grid_dim)
        self.shared: dict[str, dict[int, Any]] = {}
        #: thread-local arrays: name -> thread -> index -> value
        self.local: dict[str, dict[int, dict[int, Any]]] = {}
        self.shadow: dict[tuple[str, int], _Cell] = {}
        self.inst: dict[tuple[str, int], dict[int, tuple[int, str]]] = {}
        self.epoch = 0
        self.env: dict[str, list[Any]] = {}
        for pname, value in self.params.items():
            self.env[pname] = [value] * self.T
        self.frames: list[_Frame] = []
        self.iters: Iters = ()
        self.label = self.kernel.body.label
        self.builtins: dict[tuple[str, str], list[Any]] = {
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

    # ------------------------------------------------------------------ steps

    def _step(self, label: int) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            loop_label = self.iters[-1][0] if self.iters else label
            raise _StepLimit(loop_label)

    # ------------------------------------------------------------------ statements

    def exec_block(self, block: Block, act: list[int]) -> list[int]:
        saved: dict[str, list[Any]] = {}
        for stmt in block.stmts:
            if isinstance(stmt, Decl):
                name = stmt.var.name
                if name in self.env and name not in saved and name not in self.params:
                    saved[name] = list(self.env[name])
            if act:
                act = self.exec_stmt(stmt, act)
        # C block scope: a declaration shadows an outer variable only until the block ends
        self.env.update(saved)
        return act

    def exec_stmt(self, stmt: Stmt, act: list[int]) -> list[int]:
        if not act:
            return act
        self._step(stmt.label)
        if isinstance(stmt, If):
            return self._exec_if(stmt, act)
        if isinstance(stmt, Loop):
            return self._exec_loop(stmt, act)
        if isinstance(stmt, Switch):
            frame = _Frame("switch")
            self.frames.append(frame)
            try:
                out = self.exec_block(stmt.body, act)
            finally:
                self.frames.pop()
            return _merge(out, frame.brk)
        if isinstance(stmt, Inline):
            frame = _Frame("inline", result=stmt.result)
            self.frames.append(frame)
            try:
                out = self.exec_block(stmt.body, act)
            finally:
                self.frames.pop()
            return _merge(out, frame.ret)
        # leaves: one lock-step instruction instance
        self.label = stmt.label
        self.seq += 1
        if self.warp_sync:
            self.inst = {}
        if isinstance(stmt, Assign):
            self._exec_assign(stmt, act)
            return act
        if isinstance(stmt, Decl):
            self._exec_decl(stmt, act)
            return act
        if isinstance(stmt, ExprStmt):
            self.ev(stmt.expr, act)
            return act
        if isinstance(stmt, Barrier):
            self._exec_barrier(stmt, act)
            return act
        if isinstance(stmt, Assume):
            vals = self.ev(stmt.cond, act)
            if not all(_truthy(v) for v in vals):
                raise _AssumeFailed(stmt.label)
            return act
        if isinstance(stmt, Annotation):
            return act
        if isinstance(stmt, Break):
            for frame in reversed(self.frames):
                if frame.kind in ("loop", "switch"):
                    frame.brk.extend(act)
                    return []
            raise _Unsupported("break outside a loop or switch", stmt.label)
        if isinstance(stmt, Continue):
            for frame in reversed(self.frames):
                if frame.kind == "loop":
                    frame.cont.extend(act)
                    return []
            raise _Unsupported("continue outside a loop", stmt.label)
        if isinstance(stmt, Return):
            for frame in reversed(self.frames):
                if frame.kind == "inline":
                    if stmt.value is not None and frame.result is not None:
                        vals = self.ev(stmt.value, act)
                        self._set_var(frame.result, act, vals)
                    elif stmt.value is not None:
                        self.ev(stmt.value, act)
                    frame.ret.extend(act)
                    return []
            if stmt.value is not None:
                self.ev(stmt.value, act)
            return []  # the threads leave the kernel
        if isinstance(stmt, NamedBarrier):
            raise _Unsupported("named barriers are checked by --oracle named", stmt.label)
        raise _Unsupported(f"statement {type(stmt).__name__} not supported", stmt.label)

    def _exec_if(self, stmt: If, act: list[int]) -> list[int]:
        self.label = stmt.label
        cond = self.ev(stmt.cond, act)
        then_act = [t for t, c in zip(act, cond, strict=True) if _truthy(c)]
        else_act = [t for t, c in zip(act, cond, strict=True) if not _truthy(c)]
        out_then = self.exec_block(stmt.then, then_act) if then_act else then_act
        if stmt.els is not None and else_act:
            out_else = self.exec_block(stmt.els, else_act)
        else:
            out_else = else_act
        return _merge(out_then, out_else)

    def _exec_loop(self, stmt: Loop, act: list[int]) -> list[int]:
        """Fig. 9 (right): ``p := e; while ∃t. p { p ⇒ body; p ⇒ p := e }``."""
        outer = self.iters
        done: list[int] = []
        if stmt.test_first:
            self.label = stmt.label
            cond = self.ev(stmt.cond, act)
            running = [t for t, c in zip(act, cond, strict=True) if _truthy(c)]
            done.extend(t for t, c in zip(act, cond, strict=True) if not _truthy(c))
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
                running = [t for t, c in zip(latch_act, cond, strict=True) if _truthy(c)]
                done.extend(t for t, c in zip(latch_act, cond, strict=True) if not _truthy(c))
        finally:
            self.iters = outer
        return sorted(done)

    def _exec_barrier(self, stmt: Barrier, act: list[int]) -> None:
        if len(act) != self.T:
            if stmt.label not in self.divergences:
                enabled = set(act)
                other = next(t for t in range(self.T) if t not in enabled)
                self.divergences[stmt.label] = Divergence(
                    stmt.label, Witness(self.tids[act[0]], self.tids[other],
                                        self.block_id, self.block_id))
            if self.stop_at_divergence:
                raise _StopBlock()
        self.epoch += 1

    def _exec_decl(self, stmt: Decl, act: list[int]) -> None:
        if stmt.array is not None:
            store = self.local.setdefault(stmt.array.name, {})
            for t in act:
                store.pop(t, None)
            return
        if stmt.init is not None:
            vals = self.ev(stmt.init, act)
        else:
            zero = convert(0, stmt.var.type)
            vals = [zero] * len(act)
        self._set_var(stmt.var, act, vals)

    def _set_var(self, var: Var, act: list[int], vals: list[Any]) -> None:
        slot = self.env.get(var.name)
        if slot is None:
            slot = [convert(0, var.type)] * self.T
            self.env[var.name] = slot
        t_ = var.type
        for t, v in zip(act, vals, strict=True):
            slot[t] = convert(v, t_)

    def _exec_assign(self, stmt: Assign, act: list[int]) -> None:
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
            vals = self.ev(stmt.value, act)
            # lock-step: every enabled thread's reads above happen before any write below
            for t, i, v in zip(act, idx, vals, strict=True):
                self._write(target.mem, _to_int(i), t, v, target.field)
        else:  # pragma: no cover - exhaustive over LValue
            raise _Unsupported(f"assignment target {type(target).__name__}", stmt.label)

    # ------------------------------------------------------------------ memory

    def _store(self, mem: Memory) -> dict[int, Any]:
        if mem.space == Space.SHARED:
            return self.shared.setdefault(mem.name, {})
        return self.glob.setdefault(mem.name, {})

    def _cell_value(self, mem: Memory, idx: int, t: int) -> Any:
        if mem.space == Space.LOCAL:
            lstore = self.local.setdefault(mem.name, {}).setdefault(t, {})
            if idx not in lstore:
                lstore[idx] = _default_value(mem.elem, self.seed, "local", mem.name, idx, t)
            return lstore[idx]
        store = self._store(mem)
        if idx not in store:
            block_key = self.block if mem.space == Space.SHARED else None
            store[idx] = _default_value(mem.elem, self.seed, mem.name, idx, block_key)
        return store[idx]

    def _read(self, mem: Memory, idx: int, t: int, fld: str | None, kind: str = READ) -> Any:
        value = self._cell_value(mem, idx, t)
        if mem.can_race:
            self._access(mem, idx, t, kind)
        if fld is not None and isinstance(value, tuple):
            fields = mem.elem.fields
            return value[fields.index(fld)] if fld in fields else value[0]
        return value

    def _write(self, mem: Memory, idx: int, t: int, value: Any, fld: str | None,
               kind: str = WRITE) -> None:
        if mem.space in (Space.CONSTANT, Space.TEXTURE):
            raise _Unsupported(f"write to read-only memory '{mem.name}'", self.label)
        if fld is not None and mem.elem.kind == "vec":
            cur = self._cell_value(mem, idx, t)
            parts = list(cur) if isinstance(cur, tuple) else [cur]
            fields = mem.elem.fields
            pos = fields.index(fld) if fld in fields else 0
            parts[pos] = convert(value, mem.elem.elem or FLOAT)
            new: Any = tuple(parts)
        else:
            new = convert(value, mem.elem)
        if mem.space == Space.LOCAL:
            self.local.setdefault(mem.name, {}).setdefault(t, {})[idx] = new
        else:
            self._store(mem)[idx] = new
        if mem.can_race:
            self._access(mem, idx, t, kind)

    # ------------------------------------------------------------------ race detection

    def _access(self, mem: Memory, idx: int, t: int, kind: str) -> None:
        key = (mem.name, idx)
        cell = self.shadow.get(key)
        if cell is None or cell.epoch != self.epoch:
            cell = _Cell(self.epoch, {READ: {}, WRITE: {}, ATOMIC: {}})
            self.shadow[key] = cell
        w = self.warp_of[t]
        label, iters = self.label, self.iters
        for k2 in _CONFLICTS[kind]:
            for (lab2, it2), threads in cell.acc[k2].items():
                for w2, t2 in threads.items():
                    if w2 != w:
                        self._report(mem, idx, _Access(lab2, k2, t2, self.block, it2, 0),
                                     _Access(label, kind, t, self.block, iters, 1), True)
                        break
        slot = cell.acc[kind].setdefault((label, iters), {})
        if w not in slot and len(slot) < 2:
            slot[w] = t
        if self.warp_sync and kind != READ:
            # same warp, same instruction instance: only two updates of one cell race
            inst = self.inst.setdefault(key, {})
            prev = inst.get(w)
            if prev is not None and prev[0] != t and not (prev[1] == ATOMIC and kind == ATOMIC):
                self._report(mem, idx, _Access(label, prev[1], prev[0], self.block, iters, 0),
                             _Access(label, kind, t, self.block, iters, 1), True)
            elif prev is None:
                inst[w] = (t, kind)
        if mem.space == Space.GLOBAL:
            per_block = self.xblock.setdefault(key, {})
            for b2, seen in per_block.items():
                if b2 == self.block:
                    continue
                for (lab2, k2), t2 in seen.items():
                    if k2 in _CONFLICTS[kind]:
                        self._report(mem, idx, _Access(lab2, k2, t2, b2, (), 0),
                                     _Access(label, kind, t, self.block, iters, 1), False)
            mine = per_block.setdefault(self.block, {})
            mine.setdefault((label, kind), t)

    def _report(self, mem: Memory, idx: int, a: _Access, b: _Access, same_block: bool) -> None:
        """Record the race of the earlier access ``a`` with ``b``, ordered by text order."""
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
        if key in self.races:
            return
        bd = self.grid_dim
        self.races[key] = Race(
            first.label, second.label, mem.name, kinds, mem.space,
            Witness(self.tids[first.thread], self.tids[second.thread],
                    _linear_to_dim3(first.block, bd), _linear_to_dim3(second.block, bd), idx),
            depth)

    # ------------------------------------------------------------------ expressions

    def ev(self, e: Expr, act: list[int]) -> list[Any]:
        """The values of ``e`` for the enabled threads ``act`` (aligned with ``act``)."""
        if isinstance(e, Const):
            return [convert(e.value, e.type)] * len(act)
        if isinstance(e, Var):
            slot = self.env.get(e.name)
            if slot is None:
                slot = [convert(0, e.type)] * self.T
                self.env[e.name] = slot
            return [slot[t] for t in act]
        if isinstance(e, Builtin):
            vals = self.builtins.get((e.name, e.dim))
            if vals is None:
                if e.name == "warpSize":
                    return [self.warp_sync or 32] * len(act)
                raise _Unsupported(f"unknown builtin {e.name}.{e.dim}", self.label)
            return [vals[t] for t in act]
        if isinstance(e, Binary):
            return self._ev_binary(e, act)
        if isinstance(e, Unary):
            vals = self.ev(e.operand, act)
            if e.op == "!":
                return [0 if _truthy(v) else 1 for v in vals]
            t = e.type if e.type.kind in ("int", "float", "vec") else common_type(e.operand.type, INT)
            if e.op == "-":
                return [_arith("-", convert(0, t), convert(v, t), t) for v in vals]
            if e.op == "~":
                return [_wrap_int(~_to_int(convert(v, t)), t.bits or 32, t.signed) for v in vals]
            if e.op == "+":
                return [convert(v, t) for v in vals]
            raise _Unsupported(f"unary operator {e.op!r}", self.label)
        if isinstance(e, Cond):
            cvals = self.ev(e.cond, act)
            pos_t = [k for k, c in enumerate(cvals) if _truthy(c)]
            pos_f = [k for k, c in enumerate(cvals) if not _truthy(c)]
            out: list[Any] = [None] * len(act)
            if pos_t:
                tv = self.ev(e.then, [act[k] for k in pos_t])
                for k, v in zip(pos_t, tv, strict=True):
                    out[k] = convert(v, e.type)
            if pos_f:
                fv = self.ev(e.els, [act[k] for k in pos_f])
                for k, v in zip(pos_f, fv, strict=True):
                    out[k] = convert(v, e.type)
            return out
        if isinstance(e, Cast):
            return [convert(v, e.type) for v in self.ev(e.operand, act)]
        if isinstance(e, Load):
            idx = self.ev(e.index, act)
            return [self._read(e.mem, _to_int(i), t, e.field) for t, i in zip(act, idx, strict=True)]
        if isinstance(e, Atomic):
            return self._ev_atomic(e, act)
        if isinstance(e, Call):
            argvals = [self.ev(a, act) for a in e.args]
            return [call_value(e.name, [col[k] for col in argvals], e.type) for k in range(len(act))]
        if isinstance(e, Field):
            vals = self.ev(e.base, act)
            fields = e.base.type.fields if e.base.type.kind == "vec" else ()
            pos = fields.index(e.name) if e.name in fields else "xyzw".find(e.name)
            return [v[pos] if isinstance(v, tuple) and 0 <= pos < len(v) else v for v in vals]
        if isinstance(e, VecInit):
            cols = [self.ev(p, act) for p in e.parts]
            return [convert(tuple(col[k] for col in cols), e.type) for k in range(len(act))]
        raise _Unsupported(f"expression {type(e).__name__}", self.label)

    def _ev_binary(self, e: Binary, act: list[int]) -> list[Any]:
        op = e.op
        if op in ("&&", "||"):
            left = self.ev(e.left, act)
            need = [k for k, v in enumerate(left) if _truthy(v) == (op == "&&")]
            out = [0 if op == "&&" else 1] * len(act)
            if need:
                right = self.ev(e.right, [act[k] for k in need])
                for k, v in zip(need, right, strict=True):
                    out[k] = 1 if _truthy(v) else 0
            return out
        left = self.ev(e.left, act)
        right = self.ev(e.right, act)
        if op in ("<<", ">>"):
            lt = _promote(e.left.type)
            return [_arith(op, convert(a, lt), _to_int(b), lt)
                    for a, b in zip(left, right, strict=True)]
        ct = common_type(e.left.type, e.right.type)
        cmp = _COMPARE.get(op)
        if cmp is not None:
            return [1 if cmp(convert(a, ct), convert(b, ct)) else 0
                    for a, b in zip(left, right, strict=True)]
        if op == ",":
            return right
        return [_arith(op, convert(a, ct), convert(b, ct), ct) for a, b in zip(left, right, strict=True)]

    def _ev_atomic(self, e: Atomic, act: list[int]) -> list[Any]:
        idx = self.ev(e.index, act)
        argvals = [self.ev(a, act) for a in e.args]
        op = e.op.lower()
        if op.startswith("atomic"):
            op = op[len("atomic"):]
        op = op.lstrip("_")
        mem = e.mem
        elem = mem.elem
        out: list[Any] = []
        # atomics of one instruction serialise in some order: thread order
        for k, (t, i) in enumerate(zip(act, idx, strict=True)):
            ii = _to_int(i)
            args = [col[k] for col in argvals]
            old = self._cell_value(mem, ii, t)
            new = self._atomic_new(op, old, args, elem)
            out.append(old)
            if mem.can_race:
                self._access(mem, ii, t, ATOMIC)
            if mem.space == Space.LOCAL:
                self.local.setdefault(mem.name, {}).setdefault(t, {})[ii] = new
            else:
                self._store(mem)[ii] = new
        return out

    @staticmethod
    def _atomic_new(op: str, old: Any, args: list[Any], elem: CType) -> Any:
        a = args[0] if args else 0
        if op == "add":
            return convert(_arith("+", convert(old, elem), convert(a, elem), elem), elem)
        if op == "sub":
            return convert(_arith("-", convert(old, elem), convert(a, elem), elem), elem)
        if op in ("exch", "xchg"):
            return convert(a, elem)
        if op == "min":
            return convert(min(old, convert(a, elem)), elem)
        if op == "max":
            return convert(max(old, convert(a, elem)), elem)
        if op == "inc":  # ((old >= a) ? 0 : old + 1), unsigned
            return convert(0 if old >= convert(a, elem) else old + 1, elem)
        if op == "dec":
            return convert(a if old == 0 or old > convert(a, elem) else old - 1, elem)
        if op == "cas":
            compare, val = (args + [0, 0])[:2]
            return convert(val, elem) if old == convert(compare, elem) else old
        if op in ("and", "or", "xor"):
            sym = {"and": "&", "or": "|", "xor": "^"}[op]
            return convert(_arith(sym, _to_int(old), _to_int(a), elem), elem)
        return _default_value(elem, "atomic", op, old, tuple(args))


# --------------------------------------------------------------------------- inputs


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


@dataclass
class _InputChoice:
    params: dict[str, Any]
    ok: bool


class DynamicOracle(OracleBase):
    """Concrete lock-step execution of one launch; see the module docstring.

    ``blocks``: how many blocks to run (1 or 2; fewer if the grid is smaller).  ``seed``:
    drives inputs and never-written memory.  ``inputs``: scalar parameter values by name, and
    initial contents (list or ``{index: value}``) of global arrays by parameter name.
    ``max_steps``: bound on executed statement instances plus loop iterations; exceeding it
    yields ``Unknown("step limit", loop label)``.  Options: ``stop_at_divergence`` (bool).
    """

    name = "dynamic"

    def __init__(self, blocks: int = 2, seed: int = 0, inputs: dict[str, Any] | None = None,
                 max_steps: int = 2_000_000, **options: Any) -> None:
        self.blocks = max(1, blocks)
        self.seed = seed
        self.inputs = dict(inputs or {})
        self.max_steps = max_steps
        self.stop_at_divergence = bool(options.get("stop_at_divergence", False))
        self.options = options
        #: the scalar inputs and final global memory of the last run (for tests and reports)
        self.last_params: dict[str, Any] = {}
        self.last_globals: dict[str, dict[int, Any]] = {}

    # ------------------------------------------------------------------ inputs

    def _candidates(self, kernel: Kernel, ptype: CType, rng: random.Random) -> Any:
        bx = kernel.launch.block_dim[0]
        n = kernel.launch.threads_per_block
        total = n * kernel.launch.blocks
        if ptype.kind == "float":
            return convert(rng.choice([0.0, 0.5, 1.0, 2.0, rng.random(), rng.uniform(-4, 4)]), ptype)
        if ptype.kind == "bool":
            return rng.randint(0, 1)
        r = rng.random()
        if r < 0.45:
            v = rng.randint(1, 8)
        elif r < 0.6:
            v = rng.choice([0, 1, 2, 4, 16, 32])
        elif r < 0.8:
            v = rng.choice([bx, n, total, 2 * n, n // 2 or 1])
        elif r < 0.9:
            v = rng.randint(0, 4 * max(n, 1))
        else:
            v = rng.randint(-8, 1 << 12)
        return convert(v, ptype)

    def _requires_hold(self, kernel: Kernel, params: dict[str, Any]) -> bool:
        if not kernel.requires:
            return True
        run = _Run(kernel, LabelTree(kernel), params, {}, self.seed, 10_000, False)
        try:
            for req in kernel.requires:
                if not all(_truthy(v) for v in run.ev(req, [0])):
                    return False
        except Exception:  # noqa: BLE001 - an unevaluable requirement is simply not met
            return False
        return True

    def _solve_equalities(self, kernel: Kernel, params: dict[str, Any],
                          scalars: dict[str, CType]) -> dict[str, Any]:
        """Fallback: satisfy ``p == e`` conjuncts of the requirements by substitution."""
        out = dict(params)
        run = _Run(kernel, LabelTree(kernel), out, {}, self.seed, 10_000, False)
        for _ in range(3):
            for req in kernel.requires:
                for conj in _conjuncts(req):
                    if not (isinstance(conj, Binary) and conj.op == "=="):
                        continue
                    for var, other in ((conj.left, conj.right), (conj.right, conj.left)):
                        while isinstance(var, Cast):
                            var = var.operand
                        if isinstance(var, Var) and var.name in scalars and var.name not in self.inputs:
                            run.params = out
                            run._reset_block(0)
                            try:
                                value = run.ev(other, [0])[0]
                            except Exception:  # noqa: BLE001
                                continue
                            out[var.name] = convert(value, scalars[var.name])
                            break
        return out

    def choose_inputs(self, kernel: Kernel) -> _InputChoice:
        scalars = {p.name: p.type for p in kernel.params if p.var is not None and p.mem is None}
        given = {k: convert(v, scalars[k]) for k, v in self.inputs.items() if k in scalars}
        rng = random.Random(_h(self.seed, kernel.name))
        free = [n for n in scalars if n not in given]
        if not kernel.requires:
            return _InputChoice(given | {n: self._candidates(kernel, scalars[n], rng) for n in free}, True)
        for _ in range(300):
            params = given | {n: self._candidates(kernel, scalars[n], rng) for n in free}
            if self._requires_hold(kernel, params):
                return _InputChoice(params, True)
        for _ in range(50):
            params = given | {n: self._candidates(kernel, scalars[n], rng) for n in free}
            params = self._solve_equalities(kernel, params, scalars)
            if self._requires_hold(kernel, params):
                return _InputChoice(params, True)
        return _InputChoice(params, False)

    # ------------------------------------------------------------------ check

    def check(self, kernel: Kernel) -> Verdict:
        start = time.perf_counter()
        verdict = Verdict(queries=1)
        named = [s for s in walk_stmts(kernel.body) if isinstance(s, NamedBarrier)]
        if named or kernel.uses_named_barriers:
            label = named[0].label if named else None
            line = named[0].span.line if named and named[0].span else None
            verdict.unknowns.append(Unknown(
                "named barriers (bar.sync/bar.arrive) are not modelled by the dynamic oracle; "
                "use --oracle named", label, line))
            verdict.seconds = time.perf_counter() - start
            return verdict
        choice = self.choose_inputs(kernel)
        self.last_params = dict(choice.params)
        if not choice.ok:
            verdict.unknowns.append(Unknown("no scalar inputs satisfying __requires were found"))
            verdict.seconds = time.perf_counter() - start
            return verdict
        tree = LabelTree(kernel)
        memory_inputs = {k: v for k, v in self.inputs.items()
                         if isinstance(v, (list, tuple, dict))}
        run = _Run(kernel, tree, choice.params, memory_inputs, self.seed, self.max_steps,
                   self.stop_at_divergence)
        nblocks = min(self.blocks, kernel.launch.blocks)
        try:
            for b in range(nblocks):
                run.run_block(b)
        except _StepLimit as exc:
            verdict.unknowns.append(Unknown("step limit", exc.label, self._line(tree, exc.label)))
        except _AssumeFailed as exc:
            verdict.unknowns.append(Unknown(
                "an assumption is false in this run; the run was cut there", exc.label,
                self._line(tree, exc.label)))
        except _Unsupported as exc:
            line = self._line(tree, exc.label) if exc.label is not None else None
            verdict.unknowns.append(Unknown(str(exc), exc.label, line))
        self.last_globals = run.glob
        verdict.races = sorted(run.races.values(), key=lambda r: (
            tree.order(r.first), tree.order(r.second), r.array, r.kinds,
            -1 if r.loop_depth is None else r.loop_depth))
        verdict.divergences = sorted(run.divergences.values(), key=lambda d: tree.order(d.label))
        verdict.seconds = time.perf_counter() - start
        return verdict

    @staticmethod
    def _line(tree: LabelTree, label: int | None) -> int | None:
        if label is None or label not in tree.nodes:
            return None
        return tree.line(label)
