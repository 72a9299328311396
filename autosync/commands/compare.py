"""``autosync compare``: the developer's barriers against the synthesized optimum.

Users' real question is "is my barrier placement right, and is it the cheapest?".  This is the
experiment of Sec. IV of the AutoSync paper (Table II: O-B vs AS-B), packaged for one kernel:
strip the developer's barriers, synthesize from scratch (Algorithm 1), verify, and put the two
placements side by side -- count (per barrier kind: ``__syncthreads()`` and ``__syncwarp()``),
total cost C(𝓛) (Sec. III-C, a warp barrier priced WC·C(ℓ)), positions -- with a verdict and
a diff between the two kernels.  A developer barrier kept at its position but synthesized as
the other kind is listed too (typically a ``__syncthreads()`` a ``__syncwarp()`` can replace).

A developer barrier whose position the synthesized placement does not use is *redundant*: the
optimum does without it.  It is additionally *removable* when deleting it alone from the
developer's kernel still verifies (one oracle call each) -- the only case where the editor's
"Remove redundant barrier" action is offered, since it must never introduce a race.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from autosync.algorithm.cost import DEFAULT_WARP_COST, CostModel
from autosync.algorithm.synthesis import IterationRecord, SynthesisResult, synthesize
from autosync.render.patch import render_patch
from kpl.ast import Barrier, Kernel
from kpl.frontend import parse_kernel_text
from kpl.labels import LabelTree
from kpl.placement import BarrierKind, Placement
from kpl.transform import barrier_anchors, insert_barriers, strip_barriers
from oracle.base import Oracle, Verdict


@dataclass
class Side:
    """One side of the comparison: a placement and the 1-based lines its barriers are on."""

    placement: Placement
    lines: list[int]

    @property
    def count(self) -> int:
        return len(self.placement)

    @property
    def cost(self) -> Fraction:
        return self.placement.cost

    @property
    def per_kind(self) -> dict[str, int]:
        """Barriers per kind: ``{"__syncthreads": n, "__syncwarp": m}`` (kinds present only;
        a masked ``__syncwarp(mask)`` counts as ``__syncwarp``)."""
        out: dict[str, int] = {}
        for a in self.placement:
            name = "__syncwarp" if a.kind.warp else "__syncthreads"
            out[name] = out.get(name, 0) + 1
        return out

    def describe(self) -> str:
        """``3 barrier(s) (2 __syncthreads, 1 __syncwarp)``."""
        kinds = self.per_kind
        if set(kinds) <= {"__syncthreads"}:
            return f"{self.count} barrier(s)"
        return f"{self.count} barrier(s) (" + ", ".join(
            f"{n} {k}" for k, n in sorted(kinds.items(), reverse=True)) + ")"

    def as_json(self) -> dict[str, object]:
        cost = float(self.cost)
        return {"count": self.count, "cost": int(cost) if cost.is_integer() else cost,
                "lines": self.lines, "kinds": self.per_kind}


@dataclass
class DroppedBarrier:
    """A developer barrier the synthesized placement does without (redundant there)."""

    line: int
    column: int
    removable: bool  # the developer's kernel still verifies with just this barrier deleted
    barrier: Barrier


@dataclass
class Comparison:
    """The outcome of comparing one kernel's developer placement with the synthesized one.

    ``verdict``: ``better`` (synthesized strictly cheaper), ``equal`` or ``worse``;
    ``unfixable``/``unknown`` when synthesis failed; ``developer-incorrect`` is reported in
    ``developer_verified`` (False when the developer's own kernel does not verify).
    """

    kernel: str
    developer: Side
    synthesized: Side | None
    verdict: str
    developer_verified: bool
    developer_verdict: Verdict
    synthesis: SynthesisResult
    dropped: list[DroppedBarrier]
    #: developer barriers whose position the synthesized placement keeps with the other kind:
    #: (line, column, developer's kind, synthesized kind)
    rekinded: list[tuple[int, int, BarrierKind, BarrierKind]]
    patched_text: str | None
    diff: str
    oracle_calls: int
    seconds: float


def _barrier_lines(kernel: Kernel) -> list[int]:
    return [b.span.line for _, b in barrier_anchors(kernel) if b.span is not None]


def compare_kernel(kernel: Kernel, oracle: Oracle, *, solver: str = "rc2",
                   lc: int | float | str | Fraction = 100, ic: int | float | str | Fraction = 0.5,
                   use_facts: bool = True, parse_options: dict | None = None,
                   warp_cost: int | float | str | Fraction | None = DEFAULT_WARP_COST,
                   on_iteration: Callable[[IterationRecord], None] | None = None) -> Comparison:
    """Compare ``kernel``'s own barriers with AutoSync's from-scratch placement (``warp_cost``:
    WC of a ``__syncwarp()``; None: synthesize ``__syncthreads()`` only; ``on_iteration``: the
    synthesizer's hook, e.g. the progress line's iteration count)."""
    t0 = time.perf_counter()
    dev_barriers = barrier_anchors(kernel)
    dev_verdict = oracle.check(kernel)
    # the developer's barriers priced by the synthesis's own cost model (with the optional
    # uniform-guard fact when facts are on, as the synthesizer uses it)
    uniform = dev_verdict.uniform_guards if use_facts else frozenset()
    costs = CostModel(LabelTree(kernel), lc, ic,
                      DEFAULT_WARP_COST if warp_cost is None else warp_cost, uniform=uniform)
    dev_placement = costs.mixed((a, b.kind) for a, b in dev_barriers)
    developer = Side(dev_placement, _barrier_lines(kernel))
    calls = 1
    stripped, _ = strip_barriers(kernel)
    result = synthesize(stripped, oracle, solver=solver, lc=lc, ic=ic, use_facts=use_facts,
                        warp_cost=warp_cost, on_iteration=on_iteration)
    calls += result.oracle_calls
    path = kernel.source_path
    if not result.ok:
        return Comparison(kernel.name, developer, None, result.status, dev_verdict.verified,
                          dev_verdict, result, [], [], None, "", calls, time.perf_counter() - t0)
    opencl = kernel.language == "opencl"  # OpenCL C is patched and read again as OpenCL C
    patched = render_patch(kernel, result.placement, remove=[b for _, b in dev_barriers],
                           target="opencl" if opencl else "cuda")
    options = dict(parse_options or {})
    options.setdefault("language", kernel.language)
    options.setdefault("block_dim", kernel.launch.block_dim)
    options.setdefault("grid_dim", kernel.launch.grid_dim)
    options.setdefault("warp_sync", kernel.launch.warp_sync)
    reparsed = parse_kernel_text(patched, path, kernel=kernel.name, **options)
    synthesized = Side(result.placement, _barrier_lines(reparsed))
    if synthesized.cost < developer.cost:
        verdict = "better"
    elif synthesized.cost == developer.cost:
        verdict = "equal"
    else:
        verdict = "worse"
    dropped: list[DroppedBarrier] = []
    rekinded: list[tuple[int, int, BarrierKind, BarrierKind]] = []
    synth_kinds = {a.label: a.kind for a in result.placement}
    for index, (anchor, barrier) in enumerate(dev_barriers):
        if anchor in result.placement:
            if synth_kinds[anchor] is not barrier.kind and barrier.span is not None:
                rekinded.append((barrier.span.line, barrier.span.col, barrier.kind,
                                 synth_kinds[anchor]))
            continue
        removable = False
        if dev_verdict.verified:  # the developer's kernel minus this one barrier
            others = dev_placement.without(index)
            candidate, _ = insert_barriers(stripped, others, check_placeable=False)
            removable = oracle.check(candidate).verified
            calls += 1
        span = barrier.span
        dropped.append(DroppedBarrier(span.line if span else 0, span.col if span else 0,
                                      removable, barrier))
    diff = "".join(difflib.unified_diff(
        kernel.source_text.splitlines(keepends=True), patched.splitlines(keepends=True),
        fromfile=f"{path} (developer)", tofile=f"{path} (autosync)"))
    return Comparison(kernel.name, developer, synthesized, verdict, dev_verdict.verified,
                      dev_verdict, result, dropped, rekinded, patched, diff, calls,
                      time.perf_counter() - t0)


def comparison_json(c: Comparison) -> dict[str, object]:
    return {
        "kernel": c.kernel,
        "verdict": c.verdict,
        "developer": {**c.developer.as_json(), "verified": c.developer_verified},
        "synthesized": c.synthesized.as_json() if c.synthesized else None,
        "redundant": [{"line": d.line, "column": d.column, "removable": d.removable}
                      for d in c.dropped],
        "other_kind": [{"line": ln, "column": col, "developer": dk.value, "synthesized": sk.value}
                       for ln, col, dk, sk in c.rekinded],
        "oracle_calls": c.oracle_calls,
        "iterations": c.synthesis.iterations,
        "seconds": round(c.seconds, 4),
        "reason": c.synthesis.reason,
        "diff": c.diff,
    }


def comparison_text(c: Comparison, path: str) -> str:
    def cost(p: Side) -> str:
        value = float(p.cost)
        return str(int(value)) if value.is_integer() else f"{value:g}"

    lines = [f"{path}: kernel {c.kernel}"]
    dev = c.developer
    lines.append(f"  developer:   {dev.describe()}, cost {cost(dev)}, lines "
                 f"{', '.join(map(str, dev.lines)) or '-'}"
                 + ("" if c.developer_verified else "  [does NOT verify]"))
    if c.synthesized is None:
        lines.append(f"  synthesized: none ({c.verdict}: {c.synthesis.reason or 'no placement'})")
        return "\n".join(lines) + "\n"
    syn = c.synthesized
    lines.append(f"  synthesized: {syn.describe()}, cost {cost(syn)}, lines "
                 f"{', '.join(map(str, syn.lines)) or '-'} (verified)")
    lines.append(f"  verdict: {c.verdict}")
    for d in c.dropped:
        if d.removable:
            lines.append(f"{path}:{d.line}:{d.column}: warning: redundant barrier: the kernel "
                         "verifies without it")
        else:
            lines.append(f"{path}:{d.line}:{d.column}: note: redundant barrier: the synthesized "
                         "placement does without it (your other barriers still need it)")
    for ln, col, dk, sk in c.rekinded:
        lines.append(f"{path}:{ln}:{col}: note: the synthesized placement has {sk.value} here "
                     f"instead of {dk.value}")
    lines.append(f"  oracle calls: {c.oracle_calls}, {c.seconds:.2f} s")
    out = "\n".join(lines) + "\n"
    if c.diff:
        out += c.diff
    return out

