"""Deterministic token/line-level mutations of CUDA kernel files (the reliability fuzzer's input).

Why token/line level and not grammar-aware: the point is to reach the front end's error paths
(preprocessor, CUDA→C lowering, pycparser, KPL checks) with inputs a user could really type
or a tool could really produce -- half-edited files, wrong encodings, hostile ``#include``
lines -- so the mutations break the grammar on purpose.  Every mutant is a pure function of
``(seed, index, seed files, canary paths)``: ``random.Random`` seeded with a string is stable
across runs and Python versions, so a finding is reproduced from its id alone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED_DIRS = ("microbench", "sdk_kernels", "tests/kernels")
KERNEL_SUFFIXES = (".cu", ".cuh", ".h")

TOKEN_RE = re.compile(r"[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?[fFuUlL]*|"
                      r"<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~=<>?:;,.(){}\[\]#]")
IDENT_RE = re.compile(r"\b[A-Za-z_]\w*\b")
NUMBER_RE = re.compile(r"\b\d+\b")
EXTREMES = ("0", "-1", "2147483648", "2147483647", "4294967295", "1e30", "-2147483648",
            "0x7fffffff", "99999999999999999999", "1024", "1025")
KEYWORDS_INSERT = ("struct", "union", "template", "&", "(int)", "(float *)", "goto L;", "L:",
                   "typename", "static_cast<int>", "::", "operator", "virtual", "class", "...")


@dataclass(frozen=True)
class Canary:
    """Files planted OUTSIDE a mutant's temp folder; reading them is a finding.

    ``relative`` is the path as written in the mutant (it climbs out with ``..``),
    ``absolute`` the same file by absolute path; ``sentinel`` is the string it contains.
    """

    relative: str = ""
    absolute: str = ""
    sentinel: str = ""


@dataclass(frozen=True)
class Mutant:
    """One fuzzer input: where it came from, what was done to it, and its bytes."""

    mutant_id: int
    seed_file: str                      # path of the seed kernel, relative to the repository
    ops: tuple[str, ...]                # names of the mutations applied, in order
    data: bytes = field(repr=False)     # the mutant file's exact bytes
    file_name: str = "mutant.cu"        # its name in the temp folder (corpus files keep theirs)


def seed_files(repo: Path = REPO) -> list[Path]:
    """EVERY kernel file in the repository (sorted, so indices are stable)."""
    out: list[Path] = []
    for d in SEED_DIRS:
        out.extend(p for p in (repo / d).rglob("*") if p.is_file() and p.suffix in KERNEL_SUFFIXES)
    return sorted(set(out))


@dataclass
class _Ctx:
    """What the mutations draw replacements from."""

    idents: list[str]     # identifiers of the seed file (for identifier replacement)
    numbers: list[str]    # integer literals of the seed file
    canary: Canary        # planted files outside the temp folder


# ---- line-level mutations -------------------------------------------------------------------

Lines = list[str]


def _pick(rng: random.Random, lines: Lines) -> int:
    return rng.randrange(len(lines)) if lines else 0


def m_delete_line(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    if lines:
        del lines[_pick(rng, lines)]


def m_dup_line(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    if lines:
        i = _pick(rng, lines)
        lines.insert(i, lines[i])


def m_swap_lines(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]


def _tokens(line: str) -> list[re.Match[str]]:
    return list(TOKEN_RE.finditer(line))


def _edit_token(rng: random.Random, lines: Lines, fn: Callable[[str], str]) -> None:
    cands = [i for i, ln in enumerate(lines) if _tokens(ln)]
    if not cands:
        return
    i = rng.choice(cands)
    toks = _tokens(lines[i])
    t = rng.choice(toks)
    lines[i] = lines[i][:t.start()] + fn(t.group()) + lines[i][t.end():]


def m_drop_token(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    _edit_token(rng, lines, lambda t: "")


def m_dup_token(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    _edit_token(rng, lines, lambda t: t + " " + t)


def m_replace_ident(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    if ctx.idents:
        _edit_token(rng, lines, lambda t: rng.choice(ctx.idents) if IDENT_RE.fullmatch(t) else t)


def m_replace_number(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    pool = list(EXTREMES) + ctx.numbers
    cands = [i for i, ln in enumerate(lines) if NUMBER_RE.search(ln)]
    if not cands:
        return
    i = rng.choice(cands)
    ms = list(NUMBER_RE.finditer(lines[i]))
    m = rng.choice(ms)
    lines[i] = lines[i][:m.start()] + rng.choice(pool) + lines[i][m.end():]


def m_unbalance(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    ch = rng.choice("{}()[]")
    if rng.random() < 0.5:   # insert a stray one
        i = _pick(rng, lines)
        if lines:
            pos = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:pos] + ch + lines[i][pos:]
        else:
            lines.append(ch)
    else:                    # delete one
        cands = [i for i, ln in enumerate(lines) if ch in ln]
        if cands:
            i = rng.choice(cands)
            pos = lines[i].index(ch)
            lines[i] = lines[i][:pos] + lines[i][pos + 1:]


def m_insert_keyword(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    if not lines:
        return
    i = _pick(rng, lines)
    toks = _tokens(lines[i])
    pos = rng.choice(toks).start() if toks else 0
    kw = rng.choice(KEYWORDS_INSERT)
    lines[i] = lines[i][:pos] + kw + " " + lines[i][pos:]


def _statement_lines(lines: Lines) -> list[int]:
    return [i for i, ln in enumerate(lines) if ln.rstrip().endswith(";") and not ln.lstrip().startswith("#")]


def m_deep_if(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    cands = _statement_lines(lines)
    if not cands:
        return
    i = rng.choice(cands)
    depth = rng.choice((8, 40, 120, 300))
    conds = ("threadIdx.x < 1000", "1", "blockIdx.x == 0", "tid", "x > 0")
    head = "".join(f"if ({rng.choice(conds)}) {{ " for _ in range(depth))
    lines[i] = head + lines[i].strip() + " }" * depth


def m_anon_typedef(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    text = rng.choice((
        "typedef struct { int a; float b[4]; } anon_t;",
        "typedef union { int i; float f; } pun_t;",
        "typedef struct { struct { int x; } in; } nest_t;",
        "struct { int q; } anon_var;",
    ))
    lines.insert(_pick(rng, lines), text)


def m_knr(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    """Turn a function header's parameter list into K&R style (or add a K&R function)."""
    for i, ln in enumerate(lines):
        m = re.match(r"(\s*(?:__global__|__device__)[^()]*\b\w+\s*)\(([^()]*)\)(.*)$", ln)
        if m and m.group(2).strip() and rng.random() < 0.7:
            params = [p.strip() for p in m.group(2).split(",")]
            names = [re.findall(r"\w+", p)[-1] if re.findall(r"\w+", p) else "p" for p in params]
            decls = " ".join(p + ";" for p in params)
            lines[i] = f"{m.group(1)}({', '.join(names)}) {decls}{m.group(3)}"
            return
    lines.insert(0, "__device__ int knr(a, b) int a; float b; { return a; }")


def m_include(rng: random.Random, lines: Lines, ctx: _Ctx) -> None:
    """An ``#include`` line, often a hostile one (escape, absolute, /proc, self, canary)."""
    targets = [
        '"../../../etc/passwd"', "</etc/passwd>", '"/etc/passwd"', '"/proc/self/environ"',
        "</proc/self/environ>", '"/dev/zero"', '"/dev/stdin"', '"."', '"/"', '"mutant.cu"',
        '"./mutant.cu"', '"annotations.h"', '"missing.h"', "<cuda.h>", '"' + "x" * 300 + '.h"',
        '""', "<>", "MACRO_PATH", '"a\\b.h"',
    ]
    if ctx.canary.relative:
        targets += [f'"{ctx.canary.relative}"', f'"{ctx.canary.absolute}"',
                    f"<{ctx.canary.absolute}>"]
    lines.insert(_pick(rng, lines), "#include " + rng.choice(targets))


LINE_OPS: tuple[Callable[[random.Random, Lines, _Ctx], None], ...] = (
    m_delete_line, m_dup_line, m_swap_lines, m_drop_token, m_dup_token, m_replace_ident,
    m_replace_number, m_unbalance, m_insert_keyword, m_deep_if, m_anon_typedef, m_knr, m_include,
)


# ---- byte-level mutations (applied after the text ones) ------------------------------------

def b_crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def b_bom(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def b_latin1(rng: random.Random, data: bytes) -> bytes:
    pos = rng.randrange(len(data) + 1)
    junk = rng.choice((b"\xe9", b"\xff\xfe", b"/* caf\xe9 */", b"\xa0", b"\x00", b"\xc3("))
    return data[:pos] + junk + data[pos:]


BYTE_OPS: tuple[Callable[[random.Random, bytes], bytes], ...] = (b_crlf, b_bom, b_latin1)


def mutate_text(text: str, rng: random.Random, canary: Canary = Canary()) -> tuple[bytes, list[str]]:
    """Apply 1-3 line/token mutations and, sometimes, one byte-level one."""
    lines = text.splitlines()
    ctx = _Ctx(idents=sorted(set(IDENT_RE.findall(text))), numbers=sorted(set(NUMBER_RE.findall(text))),
               canary=canary)
    ops: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.choice(LINE_OPS)
        op(rng, lines, ctx)
        ops.append(op.__name__)
    data = ("\n".join(lines) + "\n").encode("utf-8", errors="surrogateescape")
    if rng.random() < 0.2:
        bop = rng.choice(BYTE_OPS)
        data = bop(rng, data)
        ops.append(bop.__name__)
    return data, ops


def make_mutant(seeds: Sequence[Path], seed: int, index: int, canary: Canary = Canary(),
                repo: Path = REPO) -> Mutant:
    """Mutant number ``index`` of run ``seed``: a pure function of its arguments."""
    rng = random.Random(f"autosync-fuzz:{seed}:{index}")
    src = seeds[rng.randrange(len(seeds))]
    text = src.read_text(encoding="utf-8", errors="surrogateescape")
    data, ops = mutate_text(text, rng, canary)
    rel = str(src.relative_to(repo)) if src.is_relative_to(repo) else str(src)
    return Mutant(mutant_id=index, seed_file=rel, ops=tuple(ops), data=data)
