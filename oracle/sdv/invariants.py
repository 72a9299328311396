"""Loop invariant inference of the SDV executor: candidate invariants and Houdini.

Stage: invariants of the loop abstraction (:mod:`oracle.sdv.loops`).  GPUVerify-style
guesses ([WarpsAtomics] Sec. 2.3) are generated from the loop's static facts
(:func:`candidates`: loop-activity and value uniformity, constant offsets between the
threads, the strides and monotonicity of counters of :mod:`oracle.sdv.strides`, bounds derived
from the guard, the power-of-two counters' families of :mod:`oracle.sdv.scaling`, user
``__invariant``s) and
filtered by Houdini (:func:`houdini`): keep those that hold at entry and are preserved by
one iteration.  A user invariant is one candidate among the others, so the inferred ones
strengthen it: ``offset <= n`` is inductive together with ``track(offset)``.  Every z3 query of invariant inference is made here, so
making it cheaper (slicing, an incremental solver, caching across candidate kernels) is a
change to this module.

Slicing (:func:`oracle.sdv.slice.relevant_vars`): candidates are only guessed for variables
that can decide a verdict; dropping candidates is sound by construction, since a loop head
constrained by fewer invariants is a larger over-approximation.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

import z3

from kpl import ast as K
from kpl.ast import CType
from kpl.ctypes import common_type
from oracle.sdv.candidate import Candidate
from oracle.sdv.encode import Val, conv, is_true, to_bool, values_equal
from oracle.sdv.loopinfo import LoopInfo
from oracle.sdv.scaling import scaling_candidates
from oracle.sdv.state import TRUE, QueryEngine, ThreadState, expr_pure, expr_vars, strip_casts
from oracle.sdv.strides import stride_candidates


class LoopRunner(Protocol):
    """What invariant inference needs from the loop executor: the machine state, the
    evaluation of an expression in a given state, and one havocked loop iteration.

    :class:`oracle.sdv.loops.LoopExecutor` satisfies it and hands itself in; invariant
    inference is thereby below the loop abstraction that calls it, and does not import it
    back (its iterations are the loop layer's, reached through this protocol)."""

    same: bool
    mode: str
    q: QueryEngine
    th: list[ThreadState]
    epoch: z3.ArithRef
    events: list[object]

    def relevant(self) -> set[str]: ...

    def eval_in(self, e: K.Expr, t: int, vars_: dict[str, Val], pred: z3.BoolRef) -> Val: ...

    def snapshot(self) -> tuple[Any, ...]: ...

    def restore(self, snap: tuple[Any, ...]) -> None: ...

    def havoc(self, info: LoopInfo, s0: list[dict[str, Val]], pe: list[z3.BoolRef],
              tag: str) -> tuple[list[dict[str, Val]], list[z3.BoolRef], z3.ArithRef]: ...

    def run_iteration(self, loop: K.Loop, vs: list[dict[str, Val]], la: list[z3.BoolRef],
                      k: z3.ArithRef) -> tuple[list[z3.BoolRef], list[z3.BoolRef]]: ...


_LVALUES = (K.Var, K.VarField, K.MemElem)


#: time bound of one Houdini candidate query (they take ~1 ms; see ``houdini``)
HOUDINI_QUERY_MS = 1000

def candidates(ex: LoopRunner, loop: K.Loop, info: LoopInfo, s0: list[dict[str, Val]],
               pe: list[z3.BoolRef]) -> list[Candidate]:
    """Candidate invariants of the loop head (GPUVerify-style guesses, checked by Houdini)."""
    cands: list[Candidate] = []
    lockstep = info.lockstep(ex.same)  # relational candidates (a grid-barrier loop across blocks too)
    if lockstep:
        def la_uniform(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                       p: list[z3.BoolRef]) -> list[z3.BoolRef]:
            return [z3.Implies(z3.And(p[0], p[1]), la[0] == la[1])]
        cands.append(Candidate("la-uniform", True, la_uniform))
    relevant = ex.relevant()
    for name, ct in info.modified.items():
        if name not in s0[0] or name not in s0[1] or name not in relevant:
            continue
        e0 = [s0[0][name], s0[1][name]]
        if lockstep:
            def uni(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                    n: str = name) -> list[z3.BoolRef]:
                return [z3.Implies(z3.And(la[0], la[1]), values_equal(vs[0][n], vs[1][n]))]
            cands.append(Candidate(f"uniform({name})", True, uni))
            if (isinstance(e0[0], z3.BitVecRef) and isinstance(e0[1], z3.BitVecRef)
                    and not e0[0].eq(e0[1])):
                def offs(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                         p: list[z3.BoolRef], n: str = name,
                         e: list[Val] = e0) -> list[z3.BoolRef]:
                    return [z3.Implies(z3.And(la[0], la[1]),
                                       vs[0][n] - e[0] == vs[1][n] - e[1])]  # type: ignore[operator]
                cands.append(Candidate(f"offset({name})", True, offs))
        if name in info.steps and ct.kind == "int" and all(isinstance(x, z3.BitVecRef)
                                                           for x in e0):
            op, step_e = info.steps[name]
            steps = [conv(ex.eval_in(step_e, t, s0[t], TRUE), step_e.type, ct)
                     for t in range(2)]
            if all(isinstance(x, z3.BitVecRef) for x in steps):
                cands += stride_candidates(name, ct, op, e0, steps)  # type: ignore[arg-type]
    # guard-derived bound: v < e  ==>  v == e0 || v <= e
    cond = strip_casts(loop.cond)
    if isinstance(cond, K.Binary) and cond.op in ("<", ">", "<=", ">="):
        lhs, rhs = strip_casts(cond.left), cond.right
        if (isinstance(lhs, K.Var) and lhs.name in info.modified and lhs.name in s0[0]
                and not (expr_vars(rhs) & set(info.modified)) and expr_pure(rhs)):
            gct = common_type(cond.left.type, cond.right.type)
            if gct.kind == "int":
                name = lhs.name
                bound = [conv(ex.eval_in(rhs, t, s0[t], TRUE), rhs.type, gct)
                         for t in range(2)]
                e0 = [s0[t][name] for t in range(2)]
                gop = cond.op

                def guard_bound(vs: list[dict[str, Val]], la: list[z3.BoolRef],
                                p: list[z3.BoolRef], n: str = name,
                                e: list[Val] = e0, bd: list[Val] = bound,
                                vt: CType = lhs.type, g: CType = gct) -> list[z3.BoolRef]:
                    out = []
                    for t in range(2):
                        v = conv(vs[t][n], vt, g)
                        b = bd[t]
                        if gop in ("<", "<="):
                            rel = (v <= b) if g.signed else z3.ULE(v, b)  # type: ignore[operator,arg-type]
                            if gop == "<=":
                                rel = (v <= b + 1) if g.signed else z3.ULE(v, b + 1)  # type: ignore[operator,arg-type]
                        else:
                            rel = (v >= b) if g.signed else z3.UGE(v, b)  # type: ignore[operator,arg-type]
                            if gop == ">=":
                                rel = (v >= b - 1) if g.signed else z3.UGE(v, b - 1)  # type: ignore[operator,arg-type]
                        out.append(z3.Or(vs[t][n] == e[t], rel))  # type: ignore[operator]
                    return out
                cands.append(Candidate(f"guard-bound({name})", False, guard_bound))
    def ev(e: K.Expr, t: int, vs: dict[str, Val]) -> Val:
        return ex.eval_in(e, t, vs, TRUE)
    for cname, fn in scaling_candidates(info.scales, info.modified, s0, relevant,
                                        info.ghost, loop, ev):
        cands.append(Candidate(cname, False, fn, by_rlimit=True))
    for i, inv in enumerate(info.invariants):
        def user(vs: list[dict[str, Val]], la: list[z3.BoolRef], p: list[z3.BoolRef],
                 e: K.Expr = inv) -> list[z3.BoolRef]:
            return [z3.Implies(la[t], to_bool(ex.eval_in(e, t, vs[t], la[t])))
                    for t in range(2)]
        cands.append(Candidate(f"user-invariant#{i}", False, user))
    return cands


def pair_lemmas(cands: list[Candidate], heads: list[tuple[dict[str, Val], dict[str, Val]]]
                ) -> list[z3.BoolRef]:
    """The kept candidates' pair lemmas for each (thread 0 state, thread 1 state) of loop-head
    states the abstraction runs iterations from.  Theorems given the candidates (which hold
    in every head state): they remove no execution."""
    return [c.pair_lemma(a, b) for c in cands if c.pair_lemma is not None for a, b in heads]


def houdini(ex: LoopRunner, loop: K.Loop, info: LoopInfo, s0: list[dict[str, Val]],
            pe: list[z3.BoolRef], cands: list[Candidate]) -> tuple[list[Candidate], bool]:
    """Keep the candidates that hold at loop entry and are inductive (Houdini).  The body
    is run once from an unconstrained head state (speculatively: its log is discarded);
    candidates are then dropped by counter-models until the rest is inductive.  Returns the
    kept candidates and whether every query was decided (a solver ``unknown`` drops
    candidates -- sound -- but the result then depends on time, so it is not cached)."""
    cands, decided = _holds_at_entry(ex, s0, pe, cands)
    if not cands:
        return [], decided
    snap = ex.snapshot()
    saved_ret = [th.ret for th in ex.th]
    vs, la, k = ex.havoc(info, s0, pe, "hh")
    if info.has_barrier and info.lockstep(ex.same):
        ep = z3.FreshInt("hh.ep")
        ex.q.add(ep >= ex.epoch)
        ex.epoch = ep
    la2, _ = ex.run_iteration(loop, vs, la, k)
    post_vs = [dict(th.vars) for th in ex.th]
    for th, r0 in zip(ex.th, saved_ret, strict=False):
        th.ret = r0
    cands, ok = _inductive(ex, (vs, la), (post_vs, la2), pe, cands)
    ex.restore(snap)
    return cands, decided and ok


def _drop(cs: list[Candidate], forms: list[list[z3.BoolRef]],
          m: z3.ModelRef | None) -> list[Candidate]:
    """The candidates true in the counter-model ``m`` (none when ``m`` refutes none, or
    there is no model)."""
    if m is None:
        return []
    keep = [c for c, fs in zip(cs, forms, strict=False)
            if all(is_true(m.eval(f, model_completion=True)) for f in fs)]
    return keep if len(keep) < len(cs) else []


#: bound of a Houdini query of a counter family (``Candidate.rlimit``), in z3's resource
#: units instead of time, so that the answer does not depend on the machine's load: the
#: step of ``track(d)`` (``LShR(n, j + 1) == LShR(n, j) >> 1``) needs 0.2-1 s of
#: bit-blasted shifter reasoning, past ``HOUDINI_QUERY_MS`` when the machine is busy
COUNTER_RLIMIT = 20_000_000


def _holds_at_entry(ex: LoopRunner, s0: list[dict[str, Val]], pe: list[z3.BoolRef],
                    cands: list[Candidate]) -> tuple[list[Candidate], bool]:
    """The candidates that hold in the entry state ``s0``; and whether every query was
    decided."""
    decided = True
    while cands:
        forms = [c.fn(s0, pe, pe) for c in cands]
        r, m = ex.q.check(z3.Not(z3.And([f for fs in forms for f in fs])))
        if r == z3.unsat:
            break
        decided = decided and r == z3.sat
        cands = _drop(cands, forms, m)
    return cands, decided


State = tuple[list[dict[str, Val]], list[z3.BoolRef]]


def _inductive(ex: LoopRunner, head: State, post: State, pe: list[z3.BoolRef],
               cands: list[Candidate]) -> tuple[list[Candidate], bool]:
    """The greatest subset of ``cands`` preserved by the iteration from ``head`` to
    ``post``; and whether every query was decided."""
    decided = True
    (vs, la), (post_vs, la2) = head, post
    while cands:
        pre = z3.And([f for c in cands for f in c.fn(vs, la, pe)]
                     + [f for c in cands if c.step_lemmas for f in c.step_lemmas(vs, post_vs)])
        forms = [c.fn(post_vs, la2, pe) for c in cands]
        failed: int | None = None
        r = z3.unsat
        for i, fs in enumerate(forms):
            # one query per candidate, not one for their conjunction: the negated
            # conjunction is a disjunction, and z3 then case-splits over bit-blasted
            # arithmetic (an offset candidate ``v1 - e1 == v2 - e2`` next to a
            # uniformity candidate took 16,000 conflicts, 0.3 s); the negation of ONE
            # candidate gives unit facts that preprocessing solves at once (~1 ms).
            # Bounded: a candidate the solver cannot decide in HOUDINI_QUERY_MS is dropped
            # alone (sound: fewer invariants); unbounded, a false user invariant over
            # ``i % 256`` took two 20 s queries (fuzzer, 10,000-mutant run, id 6839).
            if cands[i].by_rlimit:
                r, m = ex.q.check(pre, z3.Not(z3.And(fs)), rlimit=COUNTER_RLIMIT)
            else:
                r, m = ex.q.check(pre, z3.Not(z3.And(fs)), limit_ms=HOUDINI_QUERY_MS)
            if r != z3.unsat:
                failed = i
                break
        if failed is None:
            break
        decided = decided and r == z3.sat
        cands = _drop(cands, forms, m) if m is not None else cands[:failed] + cands[failed + 1:]
    return cands, decided


@dataclass
class HoudiniMemo:
    """Houdini results of one oracle, shared by the candidate kernels of a synthesis run.

    Why a result can be reused without re-checking: the candidate kernels differ only in
    barriers, and a barrier changes no variable, predicate or assumption -- only the epoch
    terms and the epoch constraints of the loop abstraction, and the values of reads under
    the equality abstraction (:mod:`oracle.sdv.memfacts`), which name their interval: each
    such read logs the concrete epoch it names, or that it is fresh, in ``events``, so
    equal keys mean syntactically equal read values.  Those constrain fresh epoch
    and iteration variables by lower bounds and one ordering disjunction, so any model of
    the other variables extends to them: a Houdini query (which mentions no epoch) has the
    same answer with or without them.  What barriers do change is a decision of the loop
    abstraction -- whether iteration B runs from A's state
    (:meth:`oracle.sdv.loops.LoopExecutor.abstract_loop`, ``consecutive``) -- and that
    changes which facts later code adds.  So the key is the
    kernel without its plain barriers, the mode, the names of the candidates, and the
    sequence of every such decision and Houdini call made so far in the run
    (``Machine.events``; the kernel part is ``kernel_key``, one memo per kernel shape):
    equal keys mean the same execution up to the names of fresh
    variables and the epoch terms, hence the same queries, and Houdini's result (the
    greatest inductive subset) does not depend on the order in which candidates were
    dropped.  A hit replays the events its computation produced (nested loops' decisions in
    the speculative run), so later keys stay aligned.  Results with a solver ``unknown`` are
    not stored."""

    kernel_key: tuple[object, ...]
    results: dict[tuple[object, ...], tuple[frozenset[str], tuple[object, ...]]] = \
        dataclasses.field(default_factory=dict)

    def invariants(self, ex: LoopRunner, loop: K.Loop, info: LoopInfo,
                   s0: list[dict[str, Val]], pe: list[z3.BoolRef]) -> list[Candidate]:
        """:func:`houdini` over :func:`candidates`, answered from the memo when it can."""
        cands = candidates(ex, loop, info, s0, pe)
        key = (ex.mode, loop.label, tuple(c.name for c in cands), tuple(ex.events))
        hit = self.results.get(key)
        if hit is not None:
            kept_names, during = hit
            ex.events.extend(during)
            ex.events.append(("houdini", loop.label))
            return [c for c in cands if c.name in kept_names]
        start = len(ex.events)
        kept, decided = houdini(ex, loop, info, s0, pe, cands)
        if decided:
            if len(self.results) >= _MEMO_SIZE:
                self.results.pop(next(iter(self.results)))
            self.results[key] = (frozenset(c.name for c in kept), tuple(ex.events[start:]))
        ex.events.append(("houdini", loop.label))
        return kept


_MEMO_SIZE = 4096
