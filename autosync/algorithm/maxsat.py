"""Weighted partial MaxSAT behind one small interface (the ``S`` of Algorithm 1).

Algorithm 1 needs four things from its solver ``S``: fresh propositional variables, hard
clauses (``S.ASSERT``), weighted soft constraints (``S.ASSERTSOFT(¬L_ℓ, C(ℓ))``, line 3) and an
optimal model (``S.CHECK``/``S.MODEL``, lines 17–19).  REFINE only ever *adds* hard clauses
between calls, so an incremental back end can keep what it learnt (cores) across iterations.

Contract of :class:`MaxSatSolver` (modelled on python-sat's ``examples/rc2.py``):

* variables are positive ints handed out by ``new_var`` in order 1, 2, 3, …; a literal is
  ``v`` or ``-v``;
* ``add_hard(clause)`` — a disjunction of literals that every model must satisfy; the empty
  clause makes the problem UNSAT;
* ``add_soft(lit, weight)`` — a unit soft clause with a positive INTEGER weight (costs are
  scaled exactly by :mod:`autosync.algorithm.cost`; a back end must never round them);
* ``solve()`` — a model minimising the total weight of falsified soft clauses, as the set of
  variables that are TRUE (variables the back end leaves unassigned are false), or ``None``
  when the hard clauses are UNSAT.  May be called again after more ``add_hard``/``add_soft``;
* ``cost()`` — total weight of the soft clauses falsified by the last model (exact int).

Back ends: :class:`RC2Solver` (python-sat's RC2, core-guided; the default) and
:class:`NuZSolver` (z3's ``Optimize``, i.e. νZ).  ``make_solver('rc2' | 'nuz')``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class MaxSatSolver(Protocol):
    """The solver ``S`` of Algorithm 1 (see module docstring for the contract)."""

    name: str

    def new_var(self, name: str) -> int: ...

    def add_hard(self, clause: list[int]) -> None: ...

    def add_soft(self, lit: int, weight: int) -> None: ...

    def solve(self) -> set[int] | None: ...

    def cost(self) -> int: ...


class _Base:
    """Variable book-keeping and exact cost computation shared by the back ends."""

    name = "base"

    def __init__(self) -> None:
        self.names: list[str] = []
        self.softs: list[tuple[int, int]] = []
        self._cost = 0
        self._model: set[int] | None = None

    def new_var(self, name: str) -> int:
        self.names.append(name)
        return len(self.names)

    def var_name(self, var: int) -> str:
        return self.names[abs(var) - 1]

    def _check_clause(self, clause: list[int]) -> list[int]:
        out = [int(lit) for lit in clause]
        for lit in out:
            if lit == 0 or abs(lit) > len(self.names):
                raise ValueError(f"literal {lit} does not name a variable from new_var()")
        return out

    def _check_soft(self, lit: int, weight: int) -> None:
        self._check_clause([lit])
        if not isinstance(weight, int) or isinstance(weight, bool) or weight <= 0:
            raise ValueError(f"soft weight must be a positive int, got {weight!r}")

    def _falsified_weight(self, model: set[int]) -> int:
        return sum(w for lit, w in self.softs if (lit > 0) != (abs(lit) in model))

    def cost(self) -> int:
        return self._cost


class RC2Solver(_Base):
    """python-sat's RC2 (``pysat.examples.rc2``).  Incremental: after the first ``compute``
    hard clauses go straight into the live RC2 object with ``add_clause`` (which RC2
    supports: its cores stay valid when hard clauses are added), so the unsatisfiable cores
    found in earlier REFINE iterations are reused."""

    name = "rc2"

    def __init__(self, solver: str = "g3") -> None:
        super().__init__()
        self._sat_solver = solver
        self._hard: list[list[int]] = []
        self._rc2: object | None = None
        self._unsat = False

    def add_hard(self, clause: list[int]) -> None:
        cl = self._check_clause(clause)
        if not cl:
            self._unsat = True
            return
        if self._rc2 is not None:
            self._rc2.add_clause(cl)  # type: ignore[attr-defined]
        else:
            self._hard.append(cl)

    def add_soft(self, lit: int, weight: int) -> None:
        self._check_soft(lit, weight)
        self.softs.append((lit, weight))
        if self._rc2 is not None:
            self._rc2.add_clause([lit], weight=weight)  # type: ignore[attr-defined]

    def _build(self) -> object:
        from pysat.examples.rc2 import RC2
        from pysat.formula import WCNF

        wcnf = WCNF()
        for cl in self._hard:
            wcnf.append(cl)
        for lit, w in self.softs:
            wcnf.append([lit], weight=w)
        # keep every variable known to RC2 even when no clause mentions it yet
        wcnf.nv = max(wcnf.nv, len(self.names))
        return RC2(wcnf, solver=self._sat_solver)

    def solve(self) -> set[int] | None:
        if self._unsat:
            self._model = None
            return None
        if self._rc2 is None:
            self._rc2 = self._build()
            self._hard = []
        raw = self._rc2.compute()  # type: ignore[attr-defined]
        if raw is None:
            self._unsat = True
            self._model = None
            return None
        nvars = len(self.names)
        model = {lit for lit in raw if 0 < lit <= nvars}
        self._model = model
        self._cost = self._falsified_weight(model)
        assert self._cost == self._rc2.cost, (self._cost, self._rc2.cost)  # type: ignore[attr-defined]
        return set(model)

    def close(self) -> None:
        if self._rc2 is not None:
            self._rc2.delete()  # type: ignore[attr-defined]
            self._rc2 = None

    def __del__(self) -> None:  # release the native SAT solver
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass


class NuZSolver(_Base):
    """z3's ``Optimize`` (νZ) with Bool variables and ``add_soft``; clauses are simply
    added between ``check`` calls (nothing is pushed or popped), which z3 handles
    incrementally."""

    name = "nuz"

    def __init__(self) -> None:
        super().__init__()
        import z3

        self._z3 = z3
        self._opt = z3.Optimize()
        self._vars: list[object] = []
        self._unsat = False

    def new_var(self, name: str) -> int:
        v = super().new_var(name)
        self._vars.append(self._z3.Bool(f"v{v}_{name}"))
        return v

    def _lit(self, lit: int) -> object:
        var = self._vars[abs(lit) - 1]
        return var if lit > 0 else self._z3.Not(var)  # type: ignore[arg-type]

    def add_hard(self, clause: list[int]) -> None:
        cl = self._check_clause(clause)
        if not cl:
            self._unsat = True
            return
        self._opt.add(self._z3.Or([self._lit(lit) for lit in cl]))  # type: ignore[arg-type]

    def add_soft(self, lit: int, weight: int) -> None:
        self._check_soft(lit, weight)
        self.softs.append((lit, weight))
        self._opt.add_soft(self._lit(lit), str(weight))  # type: ignore[arg-type]

    def solve(self) -> set[int] | None:
        z3 = self._z3
        if self._unsat:
            self._model = None
            return None
        result = self._opt.check()
        if result == z3.unsat:
            self._unsat = True
            self._model = None
            return None
        if result != z3.sat:
            raise RuntimeError(f"z3 Optimize returned {result}: {self._opt.reason_unknown()}")
        m = self._opt.model()
        model = {i + 1 for i, var in enumerate(self._vars)
                 if z3.is_true(m.eval(var, model_completion=True))}
        self._model = model
        self._cost = self._falsified_weight(model)
        return set(model)


SOLVERS = ("rc2", "nuz")


def make_solver(name: str = "rc2") -> MaxSatSolver:
    """``--solver rc2|nuz``."""
    if name == "rc2":
        return RC2Solver()
    if name in ("nuz", "z3"):
        return NuZSolver()
    raise ValueError(f"unknown MaxSAT solver '{name}' (known: {', '.join(SOLVERS)})")
