"""GPUVerify-style header comments at the top of a kernel file.

Kernel files start with ``//pass`` (or ``//xfail:NOT_ALL_VERIFIED``) and a flags line such as
``//--blockDim=[16,8] --gridDim=[192,48] --warp-sync=32``, or OpenCL's
``//--local_size=[16,8] --num_groups=[4,4]`` / ``--global_size=[64,32]`` (CONTRIBUTING.md, "Launch configuration",
and the README, "Kernel files"), followed by our own ``// autosync: key=value`` lines
with the expected results.  This module only reads those comments; it never touches code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kpl.errors import KplError
from kpl.launch import Dim3
from kpl.textio import blank_bom

_FLAG_TOKEN = re.compile(r"[^\s\[]*\[[^\]]*\]\S*|\S+")
_DIM_FLAGS = {
    "--blockDim": "block",
    "--blockdim": "block",
    "--local_size": "block",
    "--gridDim": "grid",
    "--griddim": "grid",
    "--num_groups": "grid",
    "--global_size": "global",
}


#: GPUVerify's options that change what is checked, honoured here (what each does; said once
#: as a note): ``--no-benign-tolerance`` by the oracles (``benign=False``), the two scopes by
#: the pipeline's verdicts, the annotation options by :mod:`kpl.frontend.annotations`
HONOURED = {
    "--no-benign-tolerance": "two writes of one value are a race",
    "--check-array-bounds": "an access out of an array of known size is an error",
    "--kernel-args": "the kernel's integer arguments take the values given",
    "--only-intra-group": "races between groups are not reported",
    "--only-divergence": "only barrier divergence is checked, no race",
    "--no-annotations": "annotations are not checked nor assumed (invariants only tried as candidates)",
    "--only-requires": "annotations other than __requires are not checked (invariants only tried "
                       "as candidates)",
    "--invariants-as-candidates": "loop invariants are tried as candidates, not checked",
}
#: options about how GPUVerify searches for a proof (inlining, inference, unrolling, logging
#: of its own), not about what holds of the kernel: without effect here, said nowhere
HARMLESS = {"--no-inline", "--inline", "--no-infer", "--infer-info", "--debug", "--k-induction-depth",
            "--loop-unwind", "--cruncher-opt", "--timeout", "--stop-at-opt", "--stop-at-gbpl",
            "--stop-at-bpl", "--time", "--verbose", "--silent", "--no-source-loc-infer",
            "--staged-inference", "--parallel-inference", "--warp-sync"}
#: options that change the verdict GPUVerify gives and that AutoSync does not honour: what
#: is done instead (one note names those a file uses)
NOT_HONOURED = {
    "--asymmetric-asserts": "assertions are checked for both threads",
    "--no-barrier-access-checks": "accesses in barrier invariants are checked",
    "--equality-abstraction": "memory values are exact, not abstracted",
    "--adversarial-abstraction": "memory values are exact, not abstracted",
    "--boogie-file": "Boogie files are not read",
    "--vcgen-opt": "GPUVerify's verifier options are not read",
    "--vcgen-op": "GPUVerify's verifier options are not read",
    "--only-log": "races are checked",
    "--global_offset": "the global offset is 0",
    "--clang-opt": "clang options other than warnings are not read",
}


@dataclass
class KernelHeader:
    """What the header comments say about a kernel (launch config, expected verdict...)."""

    verdict: str | None = None
    #: the sizes the flags line states; a dimension None is ``*`` (unconstrained: symbolic)
    block_dim: Dim3 | None = None
    grid_dim: Dim3 | None = None
    warp_sync: int | None = None
    flags: list[str] = field(default_factory=list)
    expected: dict[str, str] = field(default_factory=dict)
    #: the file has GPUVerify's flags line (``//--blockDim=…``, ``//--local_size=…``): it was
    #: written for GPUVerify, whose conventions then apply (README, "Files written for GPUVerify")
    gpuverify_style: bool = False
    #: the flags line's number (1 or 2) when there is one
    flags_line: int | None = None
    #: how many dimensions the block size is written with (``--local_size=16,8``: 2), the
    #: ``get_work_dim()`` of GPUVerify's OpenCL launch
    work_dim: int | None = None

    @property
    def options(self) -> frozenset[str]:
        """The names of the flags line's options (``--only-intra-group``; no values)."""
        return frozenset(f.partition("=")[0] for f in self.flags if f.startswith("--"))

    def option_notes(self) -> tuple[list[str], list[str]]:
        """GPUVerify's options this header uses, as said to the user: those honoured that
        change the check (``name: effect``), and those not honoured (``name (instead)``);
        options in :data:`HARMLESS` and warning flags of ``--clang-opt`` in neither.  An
        option named nowhere here is not honoured: it is never dropped without a word."""
        honoured: list[str] = []
        not_honoured: list[str] = []
        for flag in self.flags:
            name, _, value = flag.partition("=")
            if not name.startswith("--") or name in HARMLESS:
                continue
            if name == "--clang-opt" and all(v.startswith(("-W", "-w")) for v in value.split()):
                continue
            if name in HONOURED:
                said = f"{name}: {HONOURED[name]}"
                if said not in honoured:
                    honoured.append(said)
                continue
            said = f"{name} ({NOT_HONOURED.get(name, 'not known to AutoSync')})"
            if said not in not_honoured:
                not_honoured.append(said)
        return honoured, not_honoured

    @property
    def defines(self) -> dict[str, str]:
        """``-DNAME=VALUE`` / ``-D NAME`` flags of the header, as a define map."""
        out: dict[str, str] = {}
        flags = self.flags
        i = 0
        while i < len(flags):
            f = flags[i]
            body: str | None = None
            if f == "-D" and i + 1 < len(flags):
                body = flags[i + 1]
                i += 1
            elif f.startswith("-D") and len(f) > 2:
                body = f[2:]
            if body is not None:
                name, _, value = body.partition("=")
                out[name] = value if "=" in body else "1"
            i += 1
        return out


def _parse_int(text: str, path: str, line: int, col: int, what: str) -> int:
    try:
        value = int(text.strip(), 0)
    except ValueError:
        raise KplError(f"malformed {what} value '{text.strip()}': expected an integer", path, line, col) from None
    if value <= 0:
        raise KplError(f"malformed {what} value '{text.strip()}': must be positive", path, line, col)
    return value


def _parse_dim(value: str, path: str, line: int, col: int, what: str) -> Dim3:
    """``16`` -> (16,1,1); ``[16,8]`` and OpenCL's ``16,8`` -> (16,8,1); ``[a,b,c]``; missing
    dims are 1.  ``*`` (GPUVerify's "unconstrained", a whole size or one dimension of it) is
    None: symbolic, any value, as when no launch is given (:mod:`kpl.launch`)."""
    v = value.strip()
    if v.startswith("["):
        if not v.endswith("]"):
            raise KplError(f"malformed {what} value '{value}': missing ']'", path, line, col)
        v = v[1:-1]
    parts = v.split(",")
    if not 1 <= len(parts) <= 3:
        raise KplError(f"malformed {what} value '{value}': expected 1 to 3 dimensions", path, line, col)
    if parts == ["*"]:
        return (None, None, None)
    dims: list[int | None] = [None if p.strip() == "*" else _parse_int(p, path, line, col, what) for p in parts]
    while len(dims) < 3:
        dims.append(1)
    return (dims[0], dims[1], dims[2])


def _comment_body(line: str) -> str | None:
    s = line.strip()
    if s.startswith("//"):
        return s[2:]
    return None


def parse_header(text: str, path: str) -> KernelHeader:
    """Read the header as GPUVerify's test runner does, plus our ``// autosync:`` lines.

    Line 1 is the verdict (``//pass``, ``//xfail:...``); the line right after it (line 2;
    line 1 when line 1 is no verdict) is the flags line ``//--blockDim=... --gridDim=...``.
    No other comment is a flags line: a later ``//ALTERNATIVELY: --blockDim=16`` remark is
    prose.  Flags AutoSync does not use (``--no-inline``, ``--only-intra-group``,
    ``--boogie-file=...``) are kept in :attr:`KernelHeader.flags` and otherwise ignored;
    ``-DNAME=V`` becomes a define.  ``// autosync: key=value`` lines count anywhere in the
    leading comment block.  Malformed dimension values raise :class:`KplError` pointing at
    the value.
    """
    header = KernelHeader()
    lines = blank_bom(text).splitlines()
    flags_line = 1
    for idx, raw in enumerate(lines, start=1):
        body = _comment_body(raw)
        if body is None:
            if raw.strip() == "" or raw.strip().startswith("/*"):
                continue
            break  # the leading comment block ends at the first code line
        stripped = body.strip()
        base_col = raw.index("//") + 3
        m = re.match(r"\s*autosync\s*:(.*)$", body)
        if m:
            _read_autosync(header, m.group(1), path, idx, base_col + m.start(1))
            continue
        if idx == 1 and re.match(r"(pass|xfail|fail)\b", stripped, re.I):
            word, colon, reason = stripped.split()[0].partition(":")
            header.verdict = word.lower() + colon + reason  # GPUVerify's runner reads //PASS too
            flags_line = 2
            continue
        if idx == flags_line and stripped.startswith("-"):
            header.gpuverify_style = True
            header.flags_line = idx
            _read_flags(header, body, path, idx, base_col)
    return header


def _read_autosync(header: KernelHeader, rest: str, path: str, line: int, rest_col: int) -> None:
    for tm in re.finditer(r"\S+", rest):
        tok = tm.group(0)
        if "=" not in tok:
            raise KplError(f"malformed autosync line: expected key=value, got '{tok}'", path, line,
                           rest_col + tm.start())
        key, _, val = tok.partition("=")
        header.expected[key] = val


def _read_flags(header: KernelHeader, body: str, path: str, line: int, base_col: int) -> None:
    global_size: tuple[Dim3, int] | None = None  # (size, column)
    for tm in _FLAG_TOKEN.finditer(body):
        tok = tm.group(0)
        col = base_col + tm.start()
        name, eq, value = tok.partition("=")
        if name in _DIM_FLAGS:
            if not eq:
                raise KplError(f"malformed flag '{tok}': expected {name}=N or {name}=[x,y,z]", path, line, col)
            dim = _parse_dim(value, path, line, col + len(name) + 1, name.lstrip("-"))
            if _DIM_FLAGS[name] == "global":
                global_size = (dim, col)
            elif _DIM_FLAGS[name] == "block":
                header.block_dim = dim
                header.work_dim = len(value.strip().strip("[]").split(","))
            else:
                header.grid_dim = dim
        elif name == "--warp-sync":
            header.warp_sync = _parse_int(value, path, line, col + len(name) + 1, "--warp-sync") if eq else 32
        else:
            header.flags.append(tok)
    if global_size is not None:
        _global_to_groups(header, *global_size, path, line)


def _global_to_groups(header: KernelHeader, size: Dim3, col: int, path: str, line: int) -> None:
    """GPUVerify's OpenCL ``--global_size=`` (work-items in all): the number of groups is
    it divided by ``--local_size=``, which must divide it in every dimension (OpenCL 1.x's
    rule; we do not model the smaller last group of OpenCL 2.0).  A dimension either leaves
    unconstrained (``*``) leaves the number of groups unconstrained."""
    local = header.block_dim
    if local is None:
        raise KplError("--global_size needs --local_size (the work-group size)", path, line, col)
    shown = "[" + ", ".join("*" if d is None else str(d) for d in size) + "]"
    if any(g is not None and s is not None and g % s for g, s in zip(size, local, strict=True)):
        raise KplError(f"--global_size {shown} is not a multiple of --local_size "
                       f"{list(local)}", path, line, col)
    g0, g1, g2 = (None if g is None or s is None else g // s for g, s in zip(size, local, strict=True))
    groups: Dim3 = (g0, g1, g2)
    if header.grid_dim is not None and header.grid_dim != groups:
        raise KplError(f"--global_size {shown} and --num_groups {list(header.grid_dim)} "
                       "disagree", path, line, col)
    header.grid_dim = groups
