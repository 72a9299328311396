"""The state of the two-thread SDV executor, and the primitives every stage shares.

The bottom layer of the executor (the stages above subclass :class:`Machine`, see
:mod:`oracle.sdv.executor`; none is imported here, not even for types): the machine state is
declared once here (:class:`Machine`, one comment per field; the log's :class:`Access`), with
what all stages use -- the z3 query engine, predicate combinators that fold constants, the
snapshot/restore of a speculative run, and the dispatch of visitor methods on the class name of
a :mod:`kpl.ast` node (pycparser's ``c_ast.NodeVisitor`` shape, with extra arguments).
The launch is part of that state: ``blockDim``/``gridDim`` as constants or, for a symbolic
launch (:mod:`kpl.launch`), as variables over every launch CUDA allows
(:meth:`Machine.launch_constraints`).

Why one piece over 400 lines: the machine state is declared in ONE class, one commented field
each, so that every stage reads the same definition of it; the primitives here are the few
that every stage shares; and the snapshot/restore must name every field of it (split, a new
field could be missed by either).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from kpl import ast as K
from oracle.base import AccessKind, OracleError
from oracle.sdv.encode import DEFINED, Val, is_false, is_true, ite

#: calls whose value depends on other threads or on time: a fresh value per call and thread
IMPURE_PREFIXES = ("__shfl", "__ballot", "__any", "__all", "__activemask", "__match",
                   "__reduce", "clock", "__clock", "curand", "rand", "__lane", "__syncwarp",
                   "__threadfence", "__nanosleep", "atomic", K.ARBITRARY)
TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


class Unsupported(Exception):
    """A construct the encoder does not model; becomes an :class:`oracle.base.Unknown`."""


# --------------------------------------------------------------------------- visitor dispatch

_METHODS: dict[tuple[type, str, type], Callable[..., Any]] = {}


def method_for(owner: type, prefix: str, node: object, fallback: str) -> Callable[..., Any]:
    """The method ``<prefix><ClassName>`` of class ``owner`` for ``node`` (else ``fallback``).

    Like :class:`kpl.ast.NodeVisitor`, but the visitor methods take extra arguments (the
    thread and its predicate) and the lookup is cached per (class, prefix, node class):
    expression evaluation is the executor's hottest path."""
    key = (owner, prefix, type(node))
    m = _METHODS.get(key)
    if m is None:
        m = getattr(owner, prefix + type(node).__name__, None) or getattr(owner, fallback)
        _METHODS[key] = m
    return m


# --------------------------------------------------------------------------- predicates


def simp(e: z3.ExprRef) -> Any:
    return z3.simplify(e)


def mk_and(*xs: z3.BoolRef) -> z3.BoolRef:
    parts: list[z3.BoolRef] = []
    for x in xs:
        if is_false(x):
            return FALSE
        if not is_true(x):
            parts.append(x)
    if not parts:
        return TRUE
    if len(parts) == 1:
        return parts[0]
    return simp(z3.And(parts))  # type: ignore[no-any-return]


def mk_or(*xs: z3.BoolRef) -> z3.BoolRef:
    parts: list[z3.BoolRef] = []
    for x in xs:
        if is_true(x):
            return TRUE
        if not is_false(x):
            parts.append(x)
    if not parts:
        return FALSE
    if len(parts) == 1:
        return parts[0]
    return simp(z3.Or(parts))  # type: ignore[no-any-return]


def mk_not(x: z3.BoolRef) -> z3.BoolRef:
    if is_true(x):
        return FALSE
    if is_false(x):
        return TRUE
    return simp(z3.Not(x))  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- KPL facts


def strip_casts(e: K.Expr) -> K.Expr:
    while isinstance(e, K.Cast):
        e = e.operand
    return e


def expr_vars(e: K.Expr) -> set[str]:
    return {x.name for x in K.walk_expr(e) if isinstance(x, K.Var)}


def expr_pure(e: K.Expr) -> bool:
    """No memory access and no impure call in ``e``."""
    for x in K.walk_expr(e):
        if isinstance(x, (K.Load, K.Atomic)):
            return False
        if isinstance(x, K.Call) and x.name.startswith(IMPURE_PREFIXES):
            return False
    return True


class _StmtExprs:
    """The expressions a statement evaluates itself (not those of its child blocks)."""

    @staticmethod
    def visit_Decl(s: K.Decl) -> list[K.Expr]:
        return [s.init] if s.init is not None else []

    @staticmethod
    def visit_Assign(s: K.Assign) -> list[K.Expr]:
        out = [s.value]
        if isinstance(s.target, K.MemElem):
            out.append(s.target.index)
        return out

    @staticmethod
    def visit_ExprStmt(s: K.ExprStmt) -> list[K.Expr]:
        return [s.expr]

    @staticmethod
    def visit_If(s: K.If) -> list[K.Expr]:
        return [s.cond]

    @staticmethod
    def visit_Loop(s: K.Loop) -> list[K.Expr]:
        return [s.cond]

    @staticmethod
    def visit_Return(s: K.Return) -> list[K.Expr]:
        return [s.value] if s.value is not None else []

    @staticmethod
    def generic_visit(s: K.Stmt) -> list[K.Expr]:
        return []


def stmt_exprs(s: K.Stmt) -> list[K.Expr]:
    """The expressions statement ``s`` evaluates itself (the index of a stored element
    included; not those of its child blocks)."""
    return method_for(_StmtExprs, "visit_", s, "generic_visit")(s)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- solver


class QueryEngine:
    """The one z3 solver of a check, with resource limits, a query counter and a deadline."""

    def __init__(self, deadline: float | None, query_ms: int, rlimit: int | None) -> None:
        self._time = time.monotonic
        self.solver = z3.Solver()
        self.deadline = deadline
        self.query_ms = query_ms
        self.rlimit = rlimit
        if rlimit:
            self.solver.set("rlimit", rlimit)
        self.queries = 0
        #: facts held back while a stored value is evaluated (:meth:`hold`); None: none held
        self._held: list[Callable[[], z3.BoolRef]] | None = None
        #: > 0: facts added now cannot mention the held facts' values (a read's index is
        #: evaluated, ``MemoryAccesses.ev_Load``): they are added beside them
        self.beside = 0

    def _out_of_time(self) -> OracleError:
        exc = OracleError("sdv: time limit reached", timeout=True)
        exc.queries = self.queries  # asked before the time-out, for the caller's report
        return exc

    def tick(self) -> None:
        """Raise the time-out once the deadline has passed (between queries, which check it
        themselves)."""
        if self.deadline is not None and self._time() >= self.deadline:
            raise self._out_of_time()

    def add(self, f: z3.BoolRef) -> None:
        if not self.beside:
            self.release()
        if not is_true(f):
            self.solver.add(f)

    def hold(self) -> None:
        """Start holding facts back (:meth:`held`): facts about values that nothing but the
        facts themselves and one stored value mention (``DefinedArithmetic.assume_no_overflow``
        decides which).  Anything else that reaches the solver meanwhile -- a fact, a query --
        first releases them (asserts them), and nothing more is held until :meth:`done`: the
        held facts can then no longer be told apart from the others."""
        self._held = []

    def holding(self) -> bool:
        return self._held is not None

    def held(self, make: Callable[[], z3.BoolRef]) -> None:
        """Hold back the fact ``make()`` (built only if it is ever needed)."""
        assert self._held is not None
        self._held.append(make)

    def done(self) -> tuple[Callable[[], z3.BoolRef], ...] | None:
        """Stop holding; the facts still held (their stored value's, ``Access.value_facts``),
        None where they were released."""
        out = None if self._held is None else tuple(self._held)
        self._held = None
        return out

    def release(self) -> None:
        """Assert the facts held back so far, and hold no more (see :meth:`hold`)."""
        if self._held is not None:
            held, self._held = self._held, None
            for make in held:
                self.solver.add(make())

    def check(self, *fs: z3.BoolRef, limit_ms: int | None = None,
              rlimit: int | None = None, defined: bool = True) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
        """Ask ``fs`` on top of the solver's assertions; ``limit_ms`` bounds a query whose
        ``unknown`` the caller turns into the sound answer (an optional fact not claimed);
        ``rlimit`` bounds it by z3's resource count instead, so that the answer does not
        depend on how loaded the machine is; ``defined``: with the no-overflow facts
        (``encode.DEFINED``)."""
        self.release()
        ms = self.query_ms if limit_ms is None else min(self.query_ms, limit_ms)
        if self.deadline is not None:
            left = self.deadline - self._time()
            if left <= 0:
                raise self._out_of_time()
            ms = max(1, min(ms, int(left * 1000)))
        self.solver.set("timeout", ms)
        self.queries += 1
        if rlimit is not None:  # z3 counts it from the start of this check
            self.solver.set("rlimit", min(rlimit, self.rlimit) if self.rlimit else rlimit)
        self.solver.push()
        for f in (DEFINED, *fs) if defined else fs:
            self.solver.add(f)
        r = self.solver.check()
        model = self.solver.model() if r == z3.sat else None
        self.solver.pop()
        if rlimit is not None:
            self.solver.set("rlimit", self.rlimit or 0)
        if r == z3.unknown and self.deadline is not None and self._time() >= self.deadline:
            raise self._out_of_time()
        return r, model


# --------------------------------------------------------------------------- machine state

#: time bound of the exact re-query of a satisfiable witness query (``Machine.check_witness``):
#: a search through dividers with a symbolic divisor can run for the whole query bound
WITNESS_EXACT_MS = 2000


@dataclass
class BarrierHit:
    label: int
    preds: tuple[z3.BoolRef, z3.BoolRef]


@dataclass
class Access:
    """One logged access of a shared/global array by one of the two threads (declared with
    the log, ``Machine.accesses``; what its location means is :mod:`oracle.sdv.memory`)."""

    label: int                                # the leaf statement performing it
    kind: AccessKind
    mem: K.Memory
    thread: int                               # 0 or 1
    index: z3.BitVecRef                       # element index, 64 bits
    pred: z3.BoolRef                          # the thread performs it
    epoch: z3.ArithRef                        # barrier epoch it happens in
    tags: tuple[tuple[int, z3.ArithRef], ...]  # (loop label, iteration), outermost first
    field: str | None                         # vector component, None for the whole element
    view: K.CType | None = None               # byte view: ``index`` is a byte offset
    value: Val = None                         # a write's stored value (None: not known)
    waits: z3.ArithRef = z3.IntVal(0)         # wait_group_events before it (K.WaitEvents)
    copy: bool = False                        # an async copy's access (K.Assign.async_copy)
    #: no-overflow facts about ``value`` alone, held back from the solver (oracle.sdv.defined)
    value_facts: tuple[Callable[[], z3.BoolRef], ...] = ()
    #: ``value`` can differ from any other value whatever the rest of the run
    #: (``oracle.sdv.memory.free_value``): a benign-write check cannot remove a race of it
    free_value: bool = False


@dataclass
class ThreadState:
    """One thread's part of the lock-step state: its variables and control masks."""

    vars: dict[str, Val]
    pred: z3.BoolRef = TRUE    # the thread executes the current statement
    ret: z3.BoolRef = FALSE    # it has returned (from the kernel or the current Inline)
    brk: z3.BoolRef = FALSE    # it has left the innermost loop/switch by ``break``
    cont: z3.BoolRef = FALSE   # it has skipped the rest of the loop body by ``continue``
    exit: z3.BoolRef = FALSE   # it surely left the kernel (a ``return`` outside loops/Inlines)
    #: variable -> the pred at its initialised declaration (every use of it implies that pred)
    scope: dict[str, z3.BoolRef] = field(default_factory=dict)

    def copy(self) -> ThreadState:
        return ThreadState(dict(self.vars), self.pred, self.ret, self.brk, self.cont, self.exit,
                           dict(self.scope))

    def value_guard(self, name: str) -> z3.BoolRef:
        """The predicate under which an assignment to ``name`` takes effect: ``pred`` without
        its conjuncts that every later read of ``name`` implies anyway -- "has not left the
        kernel" (nothing observes a thread that left: every later access, barrier, guard and
        loop test is under its ``pred``) and the ``pred`` at ``name``'s initialised
        declaration (its uses are in its scope, after it: C++ forbids jumping past an
        initialisation).  Where such a conjunct is false the old value is never read, so it
        need not be kept.  Without this, ``if (i >= n) return;`` or an enclosing abstracted
        loop turns ``++k`` into ``ite(p, k + 1, k)``: loop counters go symbolic and terms grow
        per iteration (an MD5 round loop; matrixMul's k-loop inside its abstracted tile loop)."""
        dead: list[z3.BoolRef] = []
        if not is_false(self.exit):
            dead += _conjuncts(mk_not(self.exit))
        if name in self.scope:
            dead += _conjuncts(self.scope[name])
        if not dead or is_true(self.pred):
            return self.pred
        gone = {a.get_id() for a in dead}  # z3 terms are hash-consed: the same term, the same id
        kept = [c for c in _conjuncts(self.pred) if c.get_id() not in gone]
        return mk_and(*kept)


def _conjuncts(x: z3.BoolRef) -> list[z3.BoolRef]:
    return list(x.children()) if z3.is_and(x) else [x]  # type: ignore[arg-type]


def _dim_value(n: int | None, name: str) -> z3.BitVecRef:
    """A launch dimension for the solver: its number, or the variable ``name`` when symbolic."""
    return z3.BitVecVal(n, 32) if n is not None else z3.BitVec(name, 32)


class Machine:
    """The executor's state, for two symbolic threads in one mode (``same`` or ``cross``).

    The layers of :mod:`oracle.sdv` add behaviour on top, one subclass each (expressions,
    memory, statements, loops); a layer calls only what it or a layer below defines, so
    this class declares no hooks for the layers above."""

    def __init__(self, kernel: K.Kernel, mode: str, engine: QueryEngine, *,
                 max_unroll: int = 64, unroll_budget: int = 512) -> None:
        launch = kernel.launch
        dims = "xyz"
        self.kernel = kernel                 # the kernel being run
        self.mode = mode                     # "same" (one block) or "cross" (two blocks)
        self.same = mode == "same"
        self.q = engine                      # the solver: path facts are added to it
        self.max_unroll = max_unroll         # most iterations unrolled exactly per loop
        self.unroll_budget = unroll_budget   # iterations left to unroll in the whole run
        self.block_dim = launch.block_dim    # numbers, None where symbolic (kpl.launch)
        self.grid_dim = launch.grid_dim
        # blockDim/gridDim as the solver sees them: a constant, or a variable ranging over every
        # value CUDA allows (base_constraints) where the launch leaves the dimension symbolic
        self.bdim = tuple(_dim_value(n, f"blockDim.{d}") for n, d in zip(launch.block_dim, dims, strict=True))
        self.gdim = tuple(_dim_value(n, f"gridDim.{d}") for n, d in zip(launch.grid_dim, dims, strict=True))
        self.accesses: list[Access] = []     # the log of shared/global accesses
        self.params: dict[str, Val] = {}     # scalar parameters' values (shared by both threads)
        self.assume_defined = True  # no signed overflow (oracle.sdv.defined); off in eval_in
        self.ub_facts = 0  # no-overflow facts added
        self.assumed: set[tuple[str, int, int, int]] = set()  # (op, x, y, pred) ids of those
        # the fresh values of the adversarial reads in the stored value being evaluated, and
        # the held sums/products of them: id -> (the term, kept so that its id stays its own;
        # its value where every such read is 0) (their no-overflow facts are held back:
        # DefinedArithmetic._holdable); None: not in one
        self.value_reads: dict[int, tuple[z3.ExprRef, int]] | None = None
        self.value_ops: list[tuple[str, z3.BitVecRef, z3.BitVecRef | None]] = []  # their held facts' ops
        # (node id, thread) -> the node's last signed product / sum, for the lemmas there
        self.products: dict[tuple[int, int], tuple[Any, ...]] = {}
        self.sums: dict[tuple[int, int], tuple[Any, ...]] = {}
        self.barriers: list[BarrierHit] = []  # executed barriers, with both predicates
        self.guards: list[tuple[int, z3.BoolRef, z3.BoolRef]] = []  # (if label, t1's path, guard)
        self.unknowns: list[tuple[str, int | None]] = []  # (reason, label) not modelled
        self.named: list[int] = []           # labels of named barriers met (not modelled)
        self.tags: list[tuple[int, z3.ArithRef]] = []  # (loop label, iteration) enclosing
        self.epoch: z3.ArithRef = z3.IntVal(0)  # barrier epoch: bumped by each barrier
        self.waits: z3.ArithRef = z3.IntVal(0)  # wait_group_events executed (K.WaitEvents)
        self.copying = False                 # executing an async copy (K.Assign.async_copy)
        self.view: K.Space | None = None  # the one space checked (OpenCL fences); None: all
        self.label: int = kernel.body.label  # label of the statement being executed
        self.inline_result: list[K.Var | None] = []  # result variables of enclosing Inlines
        self._too_long: dict[tuple[object, ...], tuple[object, bool]] = {}  # predict_too_long
        self._fresh = 0                      # counter of fresh_name
        self._relevant: set[str] | None = None  # variables that can decide a verdict
        self._skipped: frozenset[int] | None = None  # loops not run (skippable_loops)
        self._kept: set[str] | None = None   # variables whose values are computed (slicing)
        # symbolic thread and block ids; in ``same`` mode both threads share the block
        self.tid = [tuple(z3.BitVec(f"t{t + 1}.{d}", 32) for d in dims) for t in range(2)]
        if self.same:
            b = tuple(z3.BitVec(f"b.{d}", 32) for d in dims)
            self.bid = [b, b]
        else:
            self.bid = [tuple(z3.BitVec(f"b{t + 1}.{d}", 32) for d in dims) for t in range(2)]
        self.launch_syms = {str(x) for ids in self.tid + self.bid for x in ids} | \
            {str(x) for x in self.bdim + self.gdim if not z3.is_bv_value(x)}
        self.th = [ThreadState({}), ThreadState({})]  # the two threads' states
        # memory values (oracle.sdv.memory): (array, concrete epoch) pairs each thread may
        # have written, results of repetition-free atomics, abstracted loops entered
        self.dirty: list[frozenset[tuple[str, int | None]]] = [frozenset(), frozenset()]
        self.atomic_results: list[tuple[int, str, Any, z3.BoolRef, z3.ArithRef, Any]] = []
        self.abstract_depth = 0
        #: a known lower bound of a symbolic epoch (set after an abstracted loop entered at a
        #: known epoch; oracle.sdv.memory.read_value), None while no such loop has run
        self.epoch_floor: int | None = None
        self._mem_facts: Any = None          # oracle.sdv.memfacts.MemFacts, once per run
        # the barrier-dependent decisions of this run, in order (loop abstraction, reads
        # under the equality abstraction): they key answers shared across the candidate
        # kernels of a synthesis run (oracle.sdv.invariants.HoudiniMemo, oracle.sdv.verifier)
        self.events: list[object] = []
        # the race queries' symbolic accesses, built once per run (AccessSide.of)
        self.sides: dict[tuple[Any, ...], Any] = {}
        # facts of this run kept out of the solver (``Candidate.exact_fn``): a model of a
        # query without them may not be an execution, so witness queries re-ask with them
        self.exact_facts: list[z3.BoolRef] = []
        self.small_witness_s = 0.0  # time spent making witnesses small (oracle.sdv.witness)
        # race queries found unsatisfiable, by the id of their term with the two selectors
        # renamed (the term is kept: a freed term's id is reused): `key` and `val` sorted
        # together ask the same query twice (Verifier._ask_pair)
        self.unsat_pairs: dict[int, z3.ExprRef] = {}
        # logged indices simplified, by the term's id (the term is kept: a freed term's id is
        # reused): every statement of a long interval logs the same ``A[tid]``
        self.simple_index: dict[int, tuple[z3.BitVecRef, z3.BitVecRef]] = {}
        # (index value's id, signed) -> (that value, its 64-bit location), the same way
        self.locations: dict[tuple[int, bool], tuple[z3.BitVecRef, z3.BitVecRef]] = {}

    # ------------------------------------------------------------------ setup

    def base_constraints(self) -> list[z3.BoolRef]:
        cs: list[z3.BoolRef] = []
        for t in range(2):
            for x, n in zip(self.tid[t], self.bdim, strict=True):
                cs.append(z3.ULT(x, n))
            for x, n in zip(self.bid[t], self.gdim, strict=True):
                cs.append(z3.ULT(x, n))
        cs.extend(self.launch_constraints())
        cs.append(z3.Or([a != b for a, b in zip(self.tid[0], self.tid[1], strict=False)])
                  if self.same else
                  z3.Or([a != b for a, b in zip(self.bid[0], self.bid[1], strict=False)]))
        return cs

    def launch_constraints(self) -> list[z3.BoolRef]:
        """The range of a symbolic launch: every launch CUDA allows (1 <= blockDim.d, x and y
        <= 1024, z <= 64, at most ``max_threads`` threads a block -- 1,024 or
        ``__launch_bounds__``; 1 <= gridDim.x < 2^31, y and z <= 65535), and fewer than 2^31
        threads in each dimension (gridDim.d * blockDim.d < 2^31: no launch of 2^31 threads or
        more in one dimension, the assumption issue 27 allows when stated).  So the global
        thread index and the grid-stride loop's stride ``blockDim.x * gridDim.x`` both fit in an
        ``int``; a launch of exactly 2^31 threads would wrap ``int i; i += blockDim.x *
        gridDim.x`` below zero after one step (the sum is then not assumed to fit:
        :func:`oracle.sdv.encode.converted_sum_fits`), and admitting it made ``i >= first``
        of the grid-stride loop non-inductive for every symbolic grid."""
        launch = self.kernel.launch
        if not launch.symbolic:
            return []
        cs: list[z3.BoolRef] = []
        for x, top in zip(self.bdim, K.MAX_BLOCK_DIM, strict=True):
            if not z3.is_bv_value(x):
                cs += [z3.UGE(x, 1), z3.ULE(x, top)]
        for x, top in zip(self.gdim, K.MAX_GRID_DIM, strict=True):
            if not z3.is_bv_value(x):
                cs += [z3.UGE(x, 1), z3.ULE(x, top)]
        stated = 1
        for d in launch.block_dim:
            stated *= d or 1
        # the product bound only where the stated dimensions keep within it: a launch analysed
        # as written past the limit (issue 34) must not make the symbolic rest empty (vacuous)
        if None in launch.block_dim and stated <= launch.max_threads:
            bx, by, bz = (z3.ZeroExt(32, v) for v in self.bdim)
            cs.append(z3.ULE(bx * by * bz, launch.max_threads))
        for b, g in zip(self.bdim, self.gdim, strict=True):
            if not (z3.is_bv_value(b) and z3.is_bv_value(g)):
                cs.append(z3.ULT(z3.ZeroExt(32, b) * z3.ZeroExt(32, g), 2 ** 31))
        cs.extend(self.global_id_lemmas())
        return cs

    def global_id_lemmas(self) -> list[z3.BoolRef]:
        """Facts that follow from the constraints above but that a bit-vector solver finds
        only by search through a multiplier: the global index ``blockIdx.d * blockDim.d +
        threadIdx.d`` of two threads is equal only for one thread (no overflow: it is below
        gridDim.d * blockDim.d < 2^31), and it is below that product.  With a symbolic blockDim the product is non-linear;
        stated once here, the solver refutes the usual ``d[blockIdx.x * blockDim.x +
        threadIdx.x]`` race query by propagation instead of timing out."""
        cs: list[z3.BoolRef] = []
        for i, n in enumerate(self.bdim):
            if z3.is_bv_value(n):
                continue
            g = [self.bid[t][i] * n + self.tid[t][i] for t in range(2)]
            h = [self.tid[t][i] + self.bid[t][i] * n for t in range(2)]
            same = z3.And(self.bid[0][i] == self.bid[1][i], self.tid[0][i] == self.tid[1][i])
            cs += [z3.Implies(g[0] == g[1], same), z3.Implies(h[0] == h[1], same)]
        for i, (n, m) in enumerate(zip(self.bdim, self.gdim, strict=True)):
            if z3.is_bv_value(n) and z3.is_bv_value(m):
                continue
            # the grid-stride loop's stride blockDim.d * gridDim.d in 32 bits is below 2^31
            # and above every global index (the stride invariant's premises, oracle.sdv.invariants)
            stride = simp(n * m)
            cs.append(z3.ULT(stride, 2 ** 31))
            cs += [z3.ULT(simp(self.bid[t][i] * n + self.tid[t][i]), stride) for t in range(2)]
        return cs

    def block_may_be_single(self) -> bool:
        """Whether a block may have one thread only (then no two threads of a block exist)."""
        return self.block_dim == (1, 1, 1) or (None in self.block_dim and
                                                all(d in (None, 1) for d in self.block_dim))

    def linear_tid(self, t: int) -> z3.BitVecRef:
        x, y, z = self.tid[t]
        bx, by, _ = self.bdim
        return x + y * bx + z * (bx * by)  # type: ignore[no-any-return]

    def fresh_name(self, base: str) -> str:
        self._fresh += 1
        return f"{base}!{self._fresh}"

    # ------------------------------------------------------------------ snapshots

    def check_witness(self, *fs: z3.BoolRef) -> tuple[z3.CheckSatResult, z3.ModelRef | None,
                                                      list[z3.BoolRef]]:
        """Ask ``fs`` for a model that is reported (a race, a divergence, a failed assertion):
        where the run keeps facts out of the solver (``exact_facts``), a satisfiable answer
        is asked again with them, within :data:`WITNESS_EXACT_MS` -- the first model may be
        no execution (remainders ``%`` does not give, :mod:`oracle.sdv.strides`), even of
        threads of another class; unsatisfiable with them, there is none.  Returns the answer,
        its model and the facts added (for the caller's follow-up queries)."""
        r, m = self.q.check(*fs)
        if r != z3.sat or not self.exact_facts:
            return r, m, []
        r, m = self.q.check(*fs, *self.exact_facts, limit_ms=WITNESS_EXACT_MS)
        return r, m, list(self.exact_facts)

    def snapshot(self) -> tuple[Any, ...]:
        self.q.solver.push()
        return ([th.copy() for th in self.th], self.epoch, list(self.tags), len(self.accesses),
                len(self.barriers), len(self.unknowns), len(self.named), self.unroll_budget,
                self.q.solver.num_scopes(), list(self.dirty), len(self.atomic_results),
                self.waits, len(self.exact_facts), self.epoch_floor)

    def restore(self, snap: tuple[Any, ...]) -> None:
        ths, epoch, tags, na, nb, nu, nn, budget, scopes, dirty, nat, waits, nx, floor = snap
        self.waits = waits
        self.epoch_floor = floor
        del self.exact_facts[nx:]
        self.dirty = list(dirty)
        del self.atomic_results[nat:]
        self.th = [th.copy() for th in ths]
        self.epoch = epoch
        self.tags = list(tags)
        del self.accesses[na:]
        del self.barriers[nb:]
        del self.unknowns[nu:]
        del self.named[nn:]
        self.unroll_budget = budget
        self.assumed.clear()  # facts of the popped scopes are gone with them
        now = self.q.solver.num_scopes()
        self.q.solver.pop(now - scopes + 1)

    # ------------------------------------------------------------------ thread state

    def unknown(self, reason: str, label: int | None = None) -> None:
        self.unknowns.append((reason, self.label if label is None else label))

    def preds(self) -> list[z3.BoolRef]:
        return [th.pred for th in self.th]

    def dead(self) -> bool:
        return all(is_false(th.pred) for th in self.th)

    def assign_var(self, t: int, name: str, value: Val) -> None:
        th = self.th[t]
        old = th.vars.get(name)
        guard = th.value_guard(name)
        if old is None or is_true(guard):
            th.vars[name] = value
        else:
            th.vars[name] = ite(guard, value, old)
