"""Cooperative groups as the CUDA they stand for, at token level (a part of the CUDA -> C
lowering, :mod:`kpl.lower_cuda`, split out for size): ``cg::`` is dropped, a block's
``sync()`` becomes ``__syncthreads()``, a tile's ``__syncwarp()``, ``thread_rank()`` and
``size()`` the linear thread id and the group size, ``tile.shfl_*`` the warp shuffles.

``grid_group::sync`` becomes ``__kpl_grid_sync()``, which the front end turns into a
``Barrier`` of kind ``GRID`` (a block barrier that also orders accesses across blocks); the
oracles model it, and synthesis keeps it as written.
"""

from __future__ import annotations

from kpl.errors import KplError
from kpl.tokens import Edits, Tok, eval_int, match_angle

#: cooperative-groups types whose variables `_coop` tracks
COOP_TYPES = {"thread_block", "grid_group", "thread_block_tile", "thread_group", "coalesced_group"}


class CoopGroupsLowering:
    """Mixin of :class:`kpl.lower_cuda.CudaLowerer`: the cooperative-groups rewrites."""

    text: str
    toks: list[Tok]
    match: dict[int, int]
    edits: Edits
    dead: list[bool]
    ns_aliases: set[str]  # names of the cooperative_groups namespace (aliases included)
    groups: dict[str, tuple[str, int]]  # group variable -> (type, tile size)

    def kill(self, a: int, b: int) -> None:
        raise NotImplementedError

    def err(self, msg: str, i: int) -> KplError:
        raise NotImplementedError

    def _coop(self, i: int) -> int:
        """Cooperative groups as the CUDA they stand for: ``cg::`` is dropped, a block's
        ``sync()`` is ``__syncthreads()``, a tile's ``__syncwarp()``, ``thread_rank()`` and
        ``size()`` are the linear thread id and the group size, ``tile.shfl_*`` the warp
        shuffles.  ``grid_group::sync`` is ``__kpl_grid_sync()`` (a grid-wide barrier).
        Returns the index of the next token to sweep."""
        toks, text = self.toks, self.text
        v = toks[i].v
        if v in self.ns_aliases and [t.v for t in toks[i + 2:i + 9]] == \
                ["this_grid", "(", ")", ".", "sync", "(", ")"]:  # `cg::this_grid().sync()`
            self.edits.replace(toks[i].start, toks[i + 8].end, "__kpl_grid_sync()")
            for k in range(i, i + 9):
                self.dead[k] = True
            return i + 9
        if v in self.ns_aliases:  # `cg::name`
            self.kill(i, i + 1)
            return i + 2
        if v in COOP_TYPES or v == "tiled_partition":
            size = 0
            k = i + 1
            if k < len(toks) and toks[k].v == "<":
                gt = match_angle(toks, k, self.match)
                size = eval_int(text[toks[k + 1].start:toks[gt - 1].end]) or 0 if gt > 0 else 0
                if gt > 0:
                    self.kill(k, gt)
                    k = gt + 1
            if v in COOP_TYPES and k < len(toks) and toks[k].kind == "id":
                self.groups[toks[k].v] = (v, size or 32)
            if v == "tiled_partition":
                self.edits.replace(toks[i].start, toks[i].end, "__kpl_tiled_partition")
            return k
        if v == "sync":  # `cg::sync(g)`
            close = self.match.get(i + 1, i + 1)
            arg = toks[i + 2].v if i + 2 < close else ""
            self._coop_sync(i, close, arg)
            return close + 1
        kind, size = self.groups[v]
        if i + 3 >= len(toks) or toks[i + 1].v != "." or toks[i + 3].v != "(":
            return i + 1
        method, close = toks[i + 2].v, self.match.get(i + 3, i + 3)
        linear = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
        if method == "sync":
            self._coop_sync(i, close, v)
            return close + 1
        block = kind == "thread_block"
        rep = {"thread_rank": linear if block else f"({linear} % {size})",
               "size": "(blockDim.x * blockDim.y * blockDim.z)" if block else f"({size})",
               "num_threads": "(blockDim.x * blockDim.y * blockDim.z)" if block else f"({size})",
               "meta_group_rank": f"({linear} / {size})"}.get(method)
        if rep is not None:
            self.edits.replace(toks[i].start, toks[close].end, rep)
        elif method.startswith("shfl") and not block:
            self.edits.replace(toks[i].start, toks[i + 3].end, f"__{method}_sync(0xffffffffu, ")
        else:
            raise self.err(f"unsupported: cooperative group method '{method}'", i + 2)
        for k in range(i, i + 4):
            self.dead[k] = True
        return i + 4

    def _coop_sync(self, i: int, close: int, group: str) -> None:
        kind = self.groups.get(group, ("", 0))[0]
        if kind == "":
            raise self.err(f"unsupported: sync of an unknown cooperative group '{group}'", i)
        size = self.groups.get(group, ("", 32))[1]
        # a tile narrower than a warp syncs only its own lanes: a partial mask (the first
        # tile's), which the oracles report as "unknown" rather than a full warp barrier
        rep = "__syncthreads()" if kind == "thread_block" else "__kpl_grid_sync()" \
            if kind == "grid_group" else (
            "__syncwarp()" if size >= 32 else f"__syncwarp(0x{(1 << size) - 1:x})")
        self.edits.replace(self.toks[i].start, self.toks[close].end, rep)
        for k in range(i, close + 1):
            self.dead[k] = True
