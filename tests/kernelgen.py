"""Random KPL kernels for the differential test: a hypothesis strategy of small kernels built
with the test builder (``conftest.py``), and a CUDA-like printer for reports.

Why generate ASTs directly: the differential test (``dynamic`` vs ``sdv``) must not depend on
the C front end, and a generator over the AST reaches corner cases (barriers inside loops
under ``break``, divergent barriers, loops over a uniform parameter) far more often than
generated C text would.  Labels and spans come from ``conftest.kernel`` ([AutoSync]
Sec. III-A label discipline).

Besides plain element accesses the generator draws the memory-model constructs of
[AutoSync]-style real kernels, each one built exactly as the front end lowers it:
``__device__`` calls (``Inline`` blocks with a result variable, also inside loops), byte
views of the ``int`` arrays (``(unsigned char *)A``, ``(short *)A``, pitched rows
``*(int *)((char *)A + row * pitch + col * 4)``, ``int2`` views), an array of structs in
shared memory accessed field by field, and an ``int2`` vector array.

With two shared arrays, two pointer VALUES ``p = A`` and ``q = B`` (kpl.frontend.pointers:
a base number and an offset variable each) are swapped (double buffers), set by a condition
(``p = c ? A : B + k``), advanced, passed to ``__device__`` calls, and accessed through: a
read as ``p.base == 1 ? A[p.off + i] : B[p.off + i]``, a write as an ``if`` over the bases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conftest import (
    BID_X,
    TID_X,
    KernelBuilder,
    add,
    assign,
    atomic_add,
    barrier,
    bop,
    brk,
    c,
    cont,
    decl,
    eq,
    for_,
    ge,
    if_,
    land,
    load,
    lt,
    mod,
    mul,
    ret,
    store,
    sub,
)
from hypothesis import strategies as st

from kpl.ast import (
    FLOAT,
    INT,
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
    Return,
    Space,
    Stmt,
    Switch,
    Unary,
    Var,
    VarField,
    VecInit,
)

# --------------------------------------------------------------------------- printing


def render_expr(e: Expr) -> str:
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Builtin):
        return f"{e.name}.{e.dim}"
    if isinstance(e, Unary):
        return f"{e.op}({render_expr(e.operand)})"
    if isinstance(e, Binary):
        return f"({render_expr(e.left)} {e.op} {render_expr(e.right)})"
    if isinstance(e, Cond):
        return f"({render_expr(e.cond)} ? {render_expr(e.then)} : {render_expr(e.els)})"
    if isinstance(e, Cast):
        return f"({e.type}){render_expr(e.operand)}"
    if isinstance(e, Load):
        if e.view is not None:
            return f"*({e.view} *)((char *){e.mem.name} + {render_expr(e.index)})"
        return f"{e.mem.name}[{render_expr(e.index)}]" + (f".{e.field}" if e.field else "")
    if isinstance(e, Atomic):
        args = "".join(", " + render_expr(a) for a in e.args)
        return f"{e.op}(&{e.mem.name}[{render_expr(e.index)}]{args})"
    if isinstance(e, Call):
        return f"{e.name}({', '.join(render_expr(a) for a in e.args)})"
    if isinstance(e, Field):
        return f"{render_expr(e.base)}.{e.name}"
    if isinstance(e, VecInit):
        return "{" + ", ".join(render_expr(p) for p in e.parts) + "}"
    return repr(e)


def _render_lvalue(t: Var | VarField | MemElem) -> str:
    if isinstance(t, Var):
        return t.name
    if isinstance(t, VarField):
        return f"{t.var.name}.{t.name}"
    if t.view is not None:
        return f"*({t.view} *)((char *){t.mem.name} + {render_expr(t.index)})"
    return f"{t.mem.name}[{render_expr(t.index)}]" + (f".{t.field}" if t.field else "")


def render(kernel: Kernel) -> str:
    """CUDA-like text of a KPL kernel, each statement tagged with its label (``/*ℓ*/``)."""
    lines: list[str] = []
    launch = kernel.launch
    ws = f" --warp-sync={launch.warp_sync}" if launch.warp_sync else ""
    lines.append(f"//--blockDim={list(launch.block_dim)} --gridDim={list(launch.grid_dim)}{ws}")
    params = ", ".join(f"{p.type} {p.name}" for p in kernel.params)
    lines.append(f"__global__ void {kernel.name}({params}) {{  /*{kernel.body.label}*/")
    for mem in kernel.memories.values():
        if mem.space == Space.SHARED:
            lines.append(f"  __shared__ {mem.elem} {mem.name}[{mem.dims[0]}];")

    def blk(b: Block, ind: str) -> None:
        for s in b.stmts:
            stmt(s, ind)

    def stmt(s: Stmt, ind: str) -> None:
        tag = f"/*{s.label}*/ "
        if isinstance(s, If):
            lines.append(f"{ind}{tag}if {render_expr(s.cond)} {{")
            blk(s.then, ind + "  ")
            if s.els is not None:
                lines.append(f"{ind}}} else {{ /*{s.els.label}*/")
                blk(s.els, ind + "  ")
            lines.append(f"{ind}}}")
        elif isinstance(s, Loop):
            latch = "; ".join(_leaf(x) for x in s.latch)
            lines.append(f"{ind}{tag}while {render_expr(s.cond)} {{  // latch: {latch}")
            blk(s.body, ind + "  ")
            lines.append(f"{ind}}}")
        elif isinstance(s, (Switch, Inline)):
            head = f"inline {s.function} -> {s.result.name if s.result else 'void'}" \
                if isinstance(s, Inline) else "switch"
            lines.append(f"{ind}{tag}{head} {{")
            blk(s.body, ind + "  ")
            lines.append(f"{ind}}}")
        else:
            lines.append(f"{ind}{tag}{_leaf(s)}")

    def _leaf(s: Stmt) -> str:
        if isinstance(s, Decl):
            init = f" = {render_expr(s.init)}" if s.init is not None else ""
            return f"{s.var.type} {s.var.name}{init};"
        if isinstance(s, Assign):
            return f"{_render_lvalue(s.target)} = {render_expr(s.value)};"
        if isinstance(s, ExprStmt):
            return f"{render_expr(s.expr)};"
        if isinstance(s, Barrier):
            return "__syncthreads();"
        if isinstance(s, Assume):
            return f"__requires({render_expr(s.cond)});"
        if isinstance(s, Break):
            return "break;"
        if isinstance(s, Continue):
            return "continue;"
        if isinstance(s, Return):
            return "return;"
        if isinstance(s, Inline):
            return f"inline {s.function} -> {s.result.name if s.result else 'void'}"
        return type(s).__name__

    blk(kernel.body, "  ")
    lines.append("}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- random kernels


UCHAR = CType("int", 8, False, "unsigned char")
SHORT = CType("int", 16, True, "short")
INT2 = CType("vec", 32, True, "int2", INT, ("x", "y"))
PAIR = CType("vec", 32, True, "Pair", FLOAT, ("a", "b"))  # struct Pair { float a, b; }
PITCH = 20  # bytes per row of a pitched view: 4 ints and 4 bytes of padding


@dataclass
class _Ctx:
    """What the generator may use at the current point."""

    arrays: list[Memory]
    globals_: list[Memory]
    tid: Var
    n: Var
    bdim: int
    loop_vars: list[Var]
    in_loop: bool
    depth: int
    free_loop_vars: list[Var]
    structs: list[Memory]  # arrays of struct Pair (field accesses only: no byte layout)
    vectors: list[Memory]  # arrays of int2
    calls: int = 0  # inlined calls so far (their variables get unique names)
    in_call: bool = False  # inside an inlined __device__ body: no break/continue/loop vars
    #: pointer values (base number, offset) over the two shared arrays (bases 1 and 2)
    ptrs: list[tuple[Var, Var]] | None = None
    temps: int = 0  # temporaries of pointer swaps


class _Gen:
    """Draws statements with a hypothesis ``draw`` function (see :func:`kernels`)."""

    def __init__(self, draw: Any, ctx: _Ctx, x: Var, y: Var, budget: int = 16,
                 max_depth: int = 2) -> None:
        self.draw = draw
        self.ctx = ctx
        self.x = x
        self.y = y
        self.budget = draw(st.integers(4, budget))
        self.max_depth = max_depth

    def idx(self) -> Expr:
        ctx = self.ctx
        tid, b = ctx.tid, ctx.bdim
        k = self.draw(st.integers(1, 3))
        forms: list[Expr] = [tid, add(tid, 1), mul(tid, 2), mod(add(tid, k), b), sub(b - 1, tid),
                             c(self.draw(st.integers(0, 3))), bop("^", tid, 1), bop(">>", tid, 1),
                             bop("/", tid, 2), bop("&", sub(tid, 1), b - 1)]
        if ctx.loop_vars:
            i = self.draw(st.sampled_from(ctx.loop_vars))
            forms += [i, add(tid, i), mod(add(tid, i), b)]
        choice = self.draw(st.integers(0, len(forms)))
        if choice == len(forms):  # rare data-dependent index
            return mod(bop("&", self.x, 1023), b)
        return forms[choice]

    def gidx(self) -> Expr:
        ctx = self.ctx
        return self.draw(st.sampled_from(
            [ctx.tid, add(mul(Cast(INT, BID_X), ctx.bdim), ctx.tid), c(0), add(ctx.tid, 1)]))

    def local(self) -> Var:
        return self.draw(st.sampled_from([self.x, self.y]))

    def guard(self) -> Expr:
        ctx = self.ctx
        tid = ctx.tid
        k = self.draw(st.integers(0, ctx.bdim))
        thread_dep: list[Expr] = [lt(tid, k), eq(mod(tid, 2), 0), eq(tid, 0), ge(tid, k),
                                  bop(">", self.x, 100)]
        uniform: list[Expr] = [bop(">", ctx.n, self.draw(st.integers(0, 3))), eq(ctx.n, 2),
                               eq(Cast(INT, BID_X), 0)]
        if ctx.loop_vars:
            i = self.draw(st.sampled_from(ctx.loop_vars))
            uniform += [eq(i, 0), eq(i, self.draw(st.integers(1, 2))), lt(i, ctx.n)]
            thread_dep += [lt(tid, i)]
        if self.draw(st.booleans()):
            return self.draw(st.sampled_from(uniform))
        return self.draw(st.sampled_from(thread_dep))

    def stmts(self, lo: int, hi: int) -> list[Stmt]:
        out: list[Stmt] = []
        count = self.draw(st.integers(lo, hi))
        for k in range(count):
            if self.budget <= 0 and k >= lo:
                break
            out.extend(self.stmt())
        return out

    def stmt(self) -> list[Stmt]:
        self.budget -= 1
        ctx = self.ctx
        kinds = ["read", "read", "write", "write", "rmw", "local", "barrier", "barrier"]
        if ctx.depth < self.max_depth:
            kinds += ["if", "if", "for"]
        if ctx.in_loop and not ctx.in_call:
            kinds += ["break", "continue"]
        kinds += ["atomic", "return"]
        if ctx.globals_:
            kinds += ["gread", "gwrite"]
        kinds += ["bytes", "pitch"]
        if ctx.structs:
            kinds += ["field"]
        if ctx.vectors:
            kinds += ["vec"]
        if not ctx.in_call and ctx.depth < self.max_depth + 1:
            kinds += ["call", "call"] if ctx.in_loop else ["call"]
        if ctx.ptrs:
            kinds += ["pread", "pwrite", "pwrite", "pswap", "pswap", "psel", "padv"]
            if not ctx.in_call:
                kinds += ["pcall"]
        kind = self.draw(st.sampled_from(kinds))
        arr = self.draw(st.sampled_from(ctx.arrays))
        if kind in ("bytes", "pitch", "field", "vec", "call"):
            return self.memory_model(kind, arr)
        if kind.startswith("p") and kind != "pitch":
            return self.pointer_value(kind)
        if kind == "read":
            return [assign(self.local(), load(arr, self.idx()))]
        if kind == "write":
            return [store(arr, self.idx(), add(self.local(), self.draw(st.integers(0, 9))))]
        if kind == "rmw":
            return [store(arr, self.idx(), add(load(arr, self.idx()), self.local()))]
        if kind == "local":
            v = self.local()
            return [assign(v, add(v, mul(ctx.tid, self.draw(st.integers(1, 3)))))]
        if kind == "barrier":
            return [barrier()]
        if kind == "atomic":
            return [atomic_add(arr, self.idx(), 1)]
        if kind == "gread":
            g = self.draw(st.sampled_from(ctx.globals_))
            return [assign(self.local(), load(g, self.gidx()))]
        if kind == "gwrite":
            g = self.draw(st.sampled_from(ctx.globals_))
            return [store(g, self.gidx(), self.local())]
        if kind in ("break", "continue", "return"):
            leaf: Stmt = brk() if kind == "break" else cont() if kind == "continue" else ret()
            return [if_(self.guard(), [leaf])]
        if kind == "if":
            cond = self.guard()
            saved = ctx.depth
            ctx.depth += 1
            then = self.stmts(1, 3)
            els = self.stmts(1, 2) if self.draw(st.integers(0, 3)) == 0 else None
            ctx.depth = saved
            return [if_(cond, then, els)]
        # for loop over a constant or the uniform parameter n
        if not ctx.free_loop_vars:
            return [barrier()]
        var = ctx.free_loop_vars.pop(0)
        roll = self.draw(st.integers(0, 7))
        hi: Expr = (ctx.n if roll < 2 else add(mod(ctx.tid, 3), 1) if roll == 2
                    else c(self.draw(st.integers(1, 3))))
        saved_depth, saved_in = ctx.depth, ctx.in_loop
        ctx.depth += 1
        ctx.in_loop = True
        ctx.loop_vars.append(var)
        body = self.stmts(1, 4)
        if ctx.ptrs:  # the Houdini candidates the front end adds (kpl.frontend.pointers)
            (pt, po), (qt, qo) = ctx.ptrs
            facts: list[Expr] = [bop("||", eq(pt, 1), eq(pt, 2)), bop("||", eq(qt, 1), eq(qt, 2)),
                                 bop("!=", pt, qt), eq(po, 0), eq(qo, 0)]
            body[:0] = [Annotation("__candidate_invariant", (f,)) for f in facts]
        ctx.loop_vars.pop()
        ctx.depth, ctx.in_loop = saved_depth, saved_in
        ctx.free_loop_vars.insert(0, var)
        return for_(var, 0, hi, body)


    def memory_model(self, kind: str, arr: Memory) -> list[Stmt]:
        """The constructs of the byte-level memory model and device calls (see the module
        docstring), lowered as the front end lowers them."""
        ctx = self.ctx
        write = self.draw(st.booleans())
        if kind == "bytes":  # (unsigned char *)A or (short *)A: a BYTE offset
            view = self.draw(st.sampled_from([UCHAR, SHORT, INT2]))
            width = {"unsigned char": 1, "short": 2, "int2": 8}[view.name]
            off = self.idx() if width == 1 else mul(self.idx(), width)
            if view is INT2:
                if write:
                    return [Assign(MemElem(arr, off, None, view),
                                   VecInit(INT2, (self.local(), self.local())))]
                return [assign(self.local(), Field(Load(arr, off, INT2, None, INT2), "y", INT))]
            if write:
                return [Assign(MemElem(arr, off, None, view), Cast(view, self.local()))]
            return [assign(self.local(), Cast(INT, Load(arr, off, view, None, view)))]
        if kind == "pitch":  # *(int *)((char *)A + row * PITCH + col * 4)
            row = bop("/", self.idx(), 4)
            col = mod(self.idx(), 4)
            off = add(mul(row, PITCH), mul(col, 4))
            if write:
                return [Assign(MemElem(arr, off, None, INT), self.local())]
            return [assign(self.local(), Load(arr, off, INT, None, INT))]
        if kind == "field":  # S[i].a / S[i].b of an array of structs
            mem = self.draw(st.sampled_from(ctx.structs))
            fld = self.draw(st.sampled_from(PAIR.fields))
            if write:
                return [Assign(MemElem(mem, self.idx(), fld), Cast(FLOAT, self.local()))]
            return [assign(self.local(), Cast(INT, Load(mem, self.idx(), FLOAT, fld)))]
        if kind == "vec":  # V[i] (whole int2) or V[i].x
            mem = self.draw(st.sampled_from(ctx.vectors))
            fld = self.draw(st.sampled_from([None, "x", "y"]))
            if write:
                value: Expr = (VecInit(INT2, (self.local(), add(self.local(), 1))) if fld is None
                               else self.local())
                return [Assign(MemElem(mem, self.idx(), fld), value)]
            if fld is None:
                return [assign(self.local(), Field(Load(mem, self.idx(), INT2), "x", INT))]
            return [assign(self.local(), Load(mem, self.idx(), INT, fld))]
        return self.call(arr)

    # ------------------------------------------------------------------ pointer values

    def _through(self, tag: Var, off: Var, write: bool) -> Stmt:
        """An access through the pointer value (tag, off), as kpl.frontend.pointers builds it."""
        a, b = self.ctx.arrays[:2]
        i = self.idx()
        at = add(off, i)
        if write:
            v = add(self.local(), self.draw(st.integers(0, 9)))
            return If(eq(tag, 1), Block([store(a, at, v)]), Block([store(b, at, v)]))
        return assign(self.local(), Cond(eq(tag, 1), load(a, at), load(b, at), INT))

    def pointer_value(self, kind: str) -> list[Stmt]:
        ctx = self.ctx
        assert ctx.ptrs
        tag, off = self.draw(st.sampled_from(ctx.ptrs))
        if kind in ("pread", "pwrite"):
            return [self._through(tag, off, kind == "pwrite")]
        if kind == "pswap":  # t = p; p = q; q = t (offsets first, as the front end assigns)
            (pt, po), (qt, qo) = ctx.ptrs
            ctx.temps += 1
            tt, to = Var(f"t{ctx.temps}.base"), Var(f"t{ctx.temps}.off")
            return [decl(tt, pt), decl(to, po), assign(po, qo), assign(pt, qt),
                    assign(qo, to), assign(qt, tt)]
        if kind == "psel":  # p = c ? A : B + k
            cond = self.guard()
            k = self.draw(st.integers(0, 3))
            return [assign(off, Cond(cond, c(0), c(k), INT)), assign(tag, Cond(cond, c(1), c(2), INT))]
        if kind == "padv":  # p = base + (offset + 1) % 4: offsets stay inside the arrays
            return [assign(off, mod(add(off, 1), 4))]
        # f(p + k): the parameter is a pointer value of its own, accessed inside the call
        ctx.calls += 1
        n = ctx.calls
        ptag, poff = Var(f"f{n}.p.base"), Var(f"f{n}.p.off")
        shift = self.draw(st.integers(0, 2))
        saved = ctx.in_call
        ctx.in_call = True
        try:
            body: list[Stmt] = [decl(ptag, tag), decl(poff, add(off, shift))]
            body += [self._through(ptag, poff, self.draw(st.booleans()))
                     for _ in range(self.draw(st.integers(1, 2)))]
        finally:
            ctx.in_call = saved
        return [Inline(f"f{n}", Block(body), None)]

    def call(self, arr: Memory) -> list[Stmt]:
        """``r = f(arg)`` with ``f`` a ``__device__`` function inlined as the front end does:
        its parameter and result are variables declared in the ``Inline`` block, an early
        ``return`` stores the result and leaves; the result then indexes an access, so a
        stale result (the previous iteration's) changes which cells race."""
        ctx = self.ctx
        ctx.calls += 1
        k = ctx.calls
        res, p = Var(f"f{k}.ret"), Var(f"f{k}.p")
        arg = self.idx()
        body: list[Stmt] = [decl(res, 0), decl(p, arg)]
        saved = (ctx.loop_vars, ctx.in_call)
        ctx.loop_vars, ctx.in_call = [p], True  # the callee sees its parameter, not our loops
        try:
            inner = self.stmts(0, 2)
        finally:
            ctx.loop_vars, ctx.in_call = saved
        shift = self.draw(st.integers(0, 2))
        value = self.draw(st.sampled_from([p, add(p, shift), bop("^", p, 1), mod(add(p, shift),
                                                                                   ctx.bdim)]))
        if self.draw(st.booleans()):
            early = self.draw(st.sampled_from([add(p, 1), sub(p, 1), c(shift)]))
            body.append(if_(self.guard(), [assign(res, early), ret()]))
        body += inner + [assign(res, value), ret()]
        out: list[Stmt] = [Inline(f"f{k}", Block(body), res)]
        if self.draw(st.booleans()):
            out.append(store(arr, res, self.local()))
        else:
            out.append(assign(self.local(), load(arr, res)))
        return out


@st.composite
def kernels(draw: Any, max_threads: int = 16, budget: int = 16, max_depth: int = 2,
            pointers: bool | None = None) -> Kernel:
    """A small random kernel: 1-2 shared arrays indexed by thread-dependent expressions
    (``tid``, ``tid+1``, ``tid*2``, ``(tid+k)%B``, loop variables…), constant-bound and
    parameter-bound loops, thread-dependent and uniform ``if``s, barriers anywhere (so also
    divergent ones), occasional ``break``/``continue``/``return``/atomics and global memory
    over 1-2 blocks, sometimes under ``--warp-sync``; pointer values over the two arrays
    (``pointers``: None sometimes, True always, False never)."""
    bdim = draw(st.sampled_from([b for b in (4, 8, 16, 32) if b <= max_threads]))
    grid = draw(st.sampled_from([1, 1, 2]))
    warp = draw(st.sampled_from([None, None, None, None, 4, bdim // 2])) if bdim >= 8 else None
    kb = KernelBuilder(f"gen{draw(st.integers(0, 10**6))}", bdim, grid, warp)
    size = 2 * bdim + 8
    arrays = [kb.shared("A", size)]
    if pointers or (pointers is None and draw(st.booleans())):
        arrays.append(kb.shared("B", size))
    globals_: list[Memory] = [kb.global_array("G")] if draw(st.integers(0, 2)) == 0 else []
    structs = [kb.shared("S", size, PAIR)] if draw(st.integers(0, 2)) == 0 else []
    vectors = [kb.shared("V", size, INT2)] if draw(st.integers(0, 2)) == 0 else []
    n = kb.scalar("n")
    kb.require(land(ge(n, 1), bop("<=", n, 3)))
    tid, x, y = Var("tid"), Var("x"), Var("y")
    ctx = _Ctx(arrays, globals_, tid, n, bdim, [], False, 0, [Var("i"), Var("j")], structs,
               vectors)
    prologue: list[Stmt] = [decl(tid, Cast(INT, TID_X)), decl(x, 0), decl(y, 0)]
    if len(arrays) == 2 and pointers is not False and (pointers or draw(st.booleans())):
        ctx.ptrs = [(Var("p.base"), Var("p.off")), (Var("q.base"), Var("q.off"))]
        prologue += [decl(ctx.ptrs[0][0], 1), decl(ctx.ptrs[0][1], 0), decl(ctx.ptrs[1][0], 2),
                     decl(ctx.ptrs[1][1], 0)]
    gen = _Gen(draw, ctx, x, y, budget, max_depth)
    body = gen.stmts(2, 8)
    return kb.build(prologue, body)


__all__ = ["kernels", "render", "render_expr"]
