"""The race-pair enumeration of the sdv oracle (``oracle.sdv.pairs.pair_candidates``).

Labels are grouped into classes that ask one formula (``label_classes``); indexing class pairs
by barrier epoch and mapping them back to label pairs (``member_pairs``) must drop exactly the
pairs that the pair query itself would dismiss (disjoint constant epochs in ``same`` mode) and
no other: a dropped pair is a missed race.  Checked against the plain n² enumeration on random
sides and classes, and on real kernels, where it is what makes a long kernel with barriers
between its statements -- and a long one without any -- linear.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.base import AccessKind, conflicts
from oracle.sdv.pairs import LabelClass, member_pairs, pair_candidates

KINDS = [AccessKind.READ, AccessKind.WRITE, AccessKind.ATOMIC]


def _naive(labels: list[int], sides: dict[int, Any], same: bool) -> list[tuple[int, int]]:
    out = []
    for i, l1 in enumerate(labels):
        t1 = sides[l1][0]
        for l2 in labels[i:]:
            t2 = sides[l2][1]
            if not (t1.insts and t2.insts):
                continue
            if not any(conflicts(a, b) for a in t1.kinds for b in t2.kinds):
                continue
            if same and t1.epochs is not None and t2.epochs is not None and not t1.epochs & t2.epochs:
                continue
            out.append((l1, l2))
    return out


side = st.builds(
    lambda present, kinds, epochs: SimpleNamespace(
        insts=[object()] if present else [], kinds=frozenset(kinds),
        epochs=None if epochs is None else frozenset(epochs)),
    st.booleans(), st.sets(st.sampled_from(KINDS), min_size=1),
    st.none() | st.sets(st.integers(0, 5), min_size=1, max_size=3))


def _expanded(labels: list[int], sides: dict[int, Any], of: list[int],
              same: bool) -> list[tuple[int, int]]:
    """The label pairs the class enumeration asks about (label i is in class ``of[i]``; the
    members of a class share its sides)."""
    classes: dict[int, LabelClass] = {}
    for pos, (lab, c) in enumerate(zip(labels, of, strict=True)):
        cls = classes.setdefault(c, LabelClass([], [], *sides[lab]))
        cls.members.append(lab)
        cls.positions.append(pos)
    ordered = sorted(classes.values(), key=lambda c: c.first)
    return sorted(p for i, j in pair_candidates(ordered, same)
                  for p in member_pairs(ordered[i], ordered[j]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(side, side), min_size=1, max_size=6),
       st.lists(st.integers(0, 5), max_size=14), st.booleans())
def test_epoch_index_keeps_every_pair_the_query_would_ask(kinds: list[Any], of: list[int],
                                                          same: bool) -> None:
    of = [c % len(kinds) for c in of]
    labels = [10 * i + 3 for i in range(len(of))]
    sides = {lab: kinds[c] for lab, c in zip(labels, of, strict=True)}
    assert _expanded(labels, sides, of, same) == sorted(_naive(labels, sides, same))


def test_barriers_between_statements_keep_the_pairs_linear(monkeypatch: Any) -> None:
    """400 statements alternating store / barrier / load / barrier: each label meets only the
    labels of its own barrier interval, and the one racy interval is still found."""
    from kpl.frontend import parse_kernel_text
    from oracle.sdv import SDVOracle, verifier

    visited: list[tuple[int, int]] = []

    def counted(*args: Any) -> Any:
        for pair in pair_candidates(*args):
            visited.append(pair)
            yield pair

    monkeypatch.setattr(verifier, "pair_candidates", counted)
    body = []
    for i in range(100):
        body += [f"  s[tid] = x + {i};", "  __syncthreads();",
                 f"  x = s[(tid + {1 + i % 63}) % 64];", "  __syncthreads();"]
    body[-1] = "  s[(tid + 5) % 64] = x;"  # the last barrier dropped: the final load races
    text = ("//--blockDim=64 --gridDim=1\n__global__ void k(int *out) {\n  __shared__ int s[64];\n"
            "  int tid = threadIdx.x;\n  int x = tid;\n" + "\n".join(body) + "\n  out[tid] = x;\n}\n")
    v = SDVOracle(warp_facts=False).check(parse_kernel_text(text))
    assert [(r.array, r.kinds) for r in v.races] == [("s", (AccessKind.READ, AccessKind.WRITE))]
    # the pairs within one interval (each store with itself, the last interval's three), not
    # the 200 * 201 / 2 = 20,100 pairs of the plain enumeration
    assert 100 <= len(visited) <= 3 * 200


def test_one_shape_is_one_class_and_one_query(monkeypatch: Any) -> None:
    """2,000 statements ``A[tid] = A[tid] + k`` with no barrier: one class of labels, one
    class pair, one query (the n² = 2 * 10^6 label pairs were the time-out of issue 28).  The
    racy twin (``A[0]``) still reports every racing label pair."""
    from kpl.frontend import parse_kernel_text
    from oracle.sdv import SDVOracle, verifier

    visited: list[tuple[int, int]] = []

    def counted(*args: Any) -> Any:
        for pair in pair_candidates(*args):
            visited.append(pair)
            yield pair

    monkeypatch.setattr(verifier, "pair_candidates", counted)

    def kernel(index: str, n: int) -> str:
        body = "\n".join(f"  A[{index}] = A[{index}] + {k};" for k in range(n))
        return ("//--blockDim=64 --gridDim=1\n__global__ void k(int *A) {\n"
                "  int tid = threadIdx.x;\n" + body + "\n}\n")

    v = SDVOracle().check(parse_kernel_text(kernel("tid", 2000)))
    # one race query; no vacuity query: the no-overflow facts of ``A[tid] + k`` are about
    # the read values alone and stay with the stored values (oracle.sdv.defined, ``_holdable``)
    assert v.verified and v.queries == 1 and visited == [(0, 0)]
    visited.clear()
    racy = SDVOracle(warp_facts=False).check(parse_kernel_text(kernel("0", 30)))
    # every ordered label pair (l1 not after l2) of the 30 statements races
    assert len(racy.races) == 30 * 31 // 2
    assert {r.array for r in racy.races} == {"A"} and visited == [(0, 0)]


# ------------------------------------------------------------ one query for arrays in step

_IN_STEP = """//--blockDim=256 --gridDim=1
__global__ void k(unsigned *out, unsigned n) {
  __shared__ unsigned key[512];
  __shared__ unsigned val[512];
  unsigned t = threadIdx.x;
  key[t] = out[t]; val[t] = out[t + 256];
  for (unsigned s = 1; s < n; s <<= 1) {
    __syncthreads();
    unsigned p = 2 * t - (t & (s - 1));
    if (key[p] > key[p + s]) {
      unsigned x = key[p]; key[p] = key[p + s]; key[p + s] = x;
      unsigned y = val[p]; val[p] = val[p + s]; VAL_WRITE = y;
    }
  }
  __syncthreads();
  out[t] = key[t] + val[t];
}
"""


def _queries(text: str) -> tuple[int, int]:
    from kpl.frontend import parse_kernel_text
    from oracle.sdv import SDVOracle
    verdict = SDVOracle().check(parse_kernel_text(text, "step.cu"))
    return verdict.queries, len([r for r in verdict.races if r.array == "val"])


def test_arrays_in_step_share_their_unsatisfiable_queries() -> None:
    """``val`` is read and written at ``key``'s indices under ``key``'s conditions: its race
    queries are ``key``'s up to the selectors' names, asked once.  Its racy twin (a write one
    element off) still races: only a query already found unsatisfiable is skipped."""
    key_only = _IN_STEP.replace("      unsigned y = val[p]; val[p] = val[p + s]; VAL_WRITE = y;\n", "")
    both = _IN_STEP.replace("VAL_WRITE", "val[p + s]")
    racy = _IN_STEP.replace("VAL_WRITE", "val[p + s + 1]")
    q_key, _ = _queries(key_only)
    q_both, races = _queries(both)
    assert races == 0 and q_both - q_key <= 2  # without the memo: 45 against 35
    assert _queries(racy)[1] > 0
