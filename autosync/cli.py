"""The ``autosync`` command line (typer): ``parse``, ``check``, ``fix`` (+ plug-in commands).

What the user does (DESIGN.md, "What the user does"):

    autosync parse kernel.cu     # the label tree of Sec. III-A, one label per line
    autosync check kernel.cu     # races / barrier divergence, compiler-style messages
    autosync fix kernel.cu       # Algorithm 1: least-cost verified __syncthreads() placement

Exit codes, the same for every command: 0 ok (verified / fixed), 1 races, divergence or an
oracle "unknown" remain (check) or the kernel cannot be fixed (fix), 2 bad input or usage,
3 internal error or ``--timeout`` reached.  Every user-facing failure is ONE line
``file:line:col: error: …`` on stderr (:meth:`kpl.errors.KplError.format`); a Python traceback
only with ``--debug``.

Heavy modules (the front end, z3, the MaxSAT back ends) are imported inside the commands, so
``autosync --version`` and ``--help`` stay fast.

Adding a command (``compare``, ``bench``, ``lsp``, …) without touching this file: create a
module ``autosync/commands/<name>.py`` (the package ``autosync/commands/`` with an empty
``__init__.py``) that defines ::

    def register(app: typer.Typer) -> None:
        @app.command()
        def compare(file: str, ...) -> None:
            from autosync.cli import KernelOptions, load, guard, pick_oracle   # shared helpers
            with guard(file):
                ...

It is discovered and registered when ``autosync.cli`` is imported (:func:`register_plugins`).
Keep the module's top-level imports light (import heavy things inside the command).  A
plug-in that fails to import is skipped (``autosync --debug`` prints why) so one broken
command cannot take the others down.

A module elsewhere that defines the same ``register(app)`` (``autosync/lsp.py``, and
``autosync/compare.py`` / ``autosync/bench.py`` when they do) is listed in
:data:`LAZY_COMMANDS` instead: it is imported only when its command is run (or ``--help``
lists the commands), so e.g. pygls is not loaded for ``autosync check``.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import pkgutil
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

if TYPE_CHECKING:
    from autosync.render import Edit
    from autosync.synthesis import SynthesisResult
    from kpl.ast import Kernel
    from oracle.base import Oracle, Verdict

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


def version() -> str:
    try:
        from importlib.metadata import version as _version

        return _version("autosync")
    except Exception:  # pragma: no cover - running from a source tree without metadata
        return "0+unknown"


# --------------------------------------------------------------------------- global state


@dataclass
class _State:
    debug: bool = False
    #: True when running as a real process (``main``): a hard watchdog may ``os._exit`` on
    #: ``--timeout`` when a solver call does not return to Python in time.
    hard_exit: bool = False
    plugin_errors: list[str] = field(default_factory=list)
    #: the last failure line printed by :func:`guard` (for ``fix --format json``'s "error")
    last_error: str | None = None


STATE = _State()


def err(line: str) -> None:
    typer.echo(line, err=True)
    if "error" in line:
        STATE.last_error = line


class BadInput(Exception):
    """A usage problem found by us (bad ``--blockDim``, unknown oracle): exit 2, one line."""

    def __init__(self, message: str, file: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file

    def format(self) -> str:
        return f"{self.file}: error: {self.message}" if self.file else f"autosync: error: {self.message}"


class Timeout(BaseException):
    """``--timeout`` reached.  A BaseException so no ``except Exception`` inside the oracle or
    the synthesizer can swallow it."""


class InternalError(Exception):
    """A failure of AutoSync itself (e.g. the patched text does not verify): exit 3."""


@contextmanager
def guard(file: str | None = None) -> Iterator[None]:
    """Turn every failure into one ``error:`` line on stderr and the documented exit code."""
    from kpl.errors import KplError
    from oracle.base import OracleError

    try:
        yield
    except typer.Exit:
        raise
    except KplError as exc:
        if STATE.debug:
            traceback.print_exc()
        err(exc.format())
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BadInput as exc:
        if STATE.debug:
            traceback.print_exc()
        err(exc.format())
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except Timeout as exc:
        err(f"{file + ': ' if file else ''}error: timeout: {exc}")
        raise typer.Exit(EXIT_INTERNAL) from None
    except OracleError as exc:
        if STATE.debug:
            traceback.print_exc()
        loc = f"{file}:{exc.line}:{exc.col or 1}: " if file and exc.line else (f"{file}: " if file else "")
        what = "timeout" if exc.timeout else "oracle error"
        err(f"{loc}error: {what}: {exc}")
        raise typer.Exit(EXIT_INTERNAL) from None
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if STATE.debug:
            traceback.print_exc()
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        err(f"{file + ': ' if file else ''}internal error: {type(exc).__name__}: {text} "
            "(rerun with --debug for a traceback)")
        raise typer.Exit(EXIT_INTERNAL) from None


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`Timeout` after ``seconds`` of wall-clock time (SIGALRM, main thread), and
    -- in a real process -- hard-exit with code 3 a little later if a native solver call does
    not give control back to Python."""
    if not seconds or seconds <= 0:
        yield
        return
    use_signal = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
    previous: Any = None
    watchdog: threading.Timer | None = None

    def on_alarm(signum: int, frame: object) -> None:
        raise Timeout(f"no result within {seconds:g} s")

    if use_signal:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    if STATE.hard_exit:
        def hard() -> None:
            err(f"error: timeout: no result within {seconds:g} s")
            sys.stderr.flush()
            os._exit(EXIT_INTERNAL)

        watchdog = threading.Timer(seconds + 2.0, hard)
        watchdog.daemon = True
        watchdog.start()
    try:
        yield
    finally:
        if use_signal:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if watchdog is not None:
            watchdog.cancel()


# --------------------------------------------------------------------------- options


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


class Solver(str, Enum):
    rc2 = "rc2"
    nuz = "nuz"


class OnOff(str, Enum):
    on = "on"
    off = "off"


FileArg = Annotated[str, typer.Argument(help="CUDA kernel file (.cu)", show_default=False)]
KernelOpt = Annotated[str | None, typer.Option("--kernel", "-k", help="Pick one __global__ kernel by name.")]
DefineOpt = Annotated[list[str] | None, typer.Option(
    "-D", "--define", help="Preprocessor define NAME[=VALUE] (repeatable).")]
IncludeOpt = Annotated[list[str] | None, typer.Option(
    "-I", "--include-dir", help="Folder searched for #include \"…\" (repeatable).")]
BlockDimOpt = Annotated[str | None, typer.Option(
    "--blockDim", "--block-dim", help="Threads per block: 256, [16,8] or 16,8 (overrides the header).")]
GridDimOpt = Annotated[str | None, typer.Option(
    "--gridDim", "--grid-dim", help="Blocks per grid: 64, [4,4] or 4,4 (overrides the header).")]
WarpSyncOpt = Annotated[int | None, typer.Option(
    "--warp-sync", help="Warp-synchronous semantics with this warp size (e.g. 32).")]
OracleOpt = Annotated[str | None, typer.Option(
    "--oracle", help="Oracle: sdv (default), dynamic, named (default for named barriers).")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--timeout", help="Give up after SECONDS (exit 3).", metavar="SECONDS")]
FormatOpt = Annotated[Format, typer.Option("--format", help="Output format.")]


def parse_dim(value: str | None, flag: str, file: str | None) -> tuple[int, int, int] | None:
    """``256`` / ``[16,8]`` / ``16,8`` / ``16x8`` -> (x, y, z) with missing dims 1."""
    if value is None:
        return None
    text = value.strip()
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    parts = [p.strip() for p in inner.replace("x", ",").split(",")]
    try:
        dims = [int(p, 0) for p in parts]
    except ValueError:
        dims = []
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise BadInput(f"bad {flag} value '{value}': expected N, [X,Y,Z] or X,Y[,Z] with positive integers", file)
    while len(dims) < 3:
        dims.append(1)
    return (dims[0], dims[1], dims[2])


def parse_defines(items: list[str] | None, file: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
            raise BadInput(f"bad -D value '{item}': expected NAME or NAME=VALUE", file)
        out[name] = value if eq else "1"
    return out


@dataclass
class KernelOptions:
    """How to turn a file into kernels: the options shared by every command."""

    file: str
    kernel: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    block_dim: tuple[int, int, int] | None = None
    grid_dim: tuple[int, int, int] | None = None
    warp_sync: int | None = None

    @classmethod
    def build(cls, file: str, kernel: str | None = None, defines: list[str] | None = None,
              include_dirs: list[str] | None = None, block_dim: str | None = None,
              grid_dim: str | None = None, warp_sync: int | None = None) -> KernelOptions:
        if warp_sync is not None and warp_sync <= 0:
            raise BadInput(f"bad --warp-sync value '{warp_sync}': expected a positive warp size", file)
        return cls(file, kernel, parse_defines(defines, file), list(include_dirs or []),
                   parse_dim(block_dim, "--blockDim", file), parse_dim(grid_dim, "--gridDim", file), warp_sync)

    def frontend_kwargs(self) -> dict[str, Any]:
        return {"defines": self.defines or None, "include_dirs": self.include_dirs or None,
                "block_dim": self.block_dim, "grid_dim": self.grid_dim, "warp_sync": self.warp_sync}


def load(opts: KernelOptions, text: str | None = None) -> list[Kernel]:
    """The kernels of ``opts.file`` (or of ``text`` parsed as that file): all of them, in file
    order, or the one named by ``--kernel`` (unknown name -> KplError listing the names)."""
    from kpl import frontend

    kernels = frontend.load_kernels(opts.file, text, **opts.frontend_kwargs())
    if opts.kernel is not None:
        return [frontend.select_kernel(kernels, opts.kernel, opts.file)]
    return kernels


def pick_oracle(name: str | None, kernel: Kernel, timeout: float | None, file: str | None) -> tuple[str, Oracle]:
    """``--oracle NAME``, or ``named`` for kernels with named barriers, else ``sdv``."""
    from oracle import registry

    chosen = name or ("named" if kernel.uses_named_barriers else "sdv")
    if chosen not in registry.available():
        raise BadInput(f"unknown oracle '{chosen}' (known: {', '.join(registry.available())})", file)
    if name is None and chosen == "named":
        try:
            importlib.import_module("oracle.named")
        except ImportError:
            chosen = "sdv"
    options: dict[str, Any] = {}
    if timeout:
        options["timeout"] = timeout
    try:
        return chosen, registry.get_oracle(chosen, **options)
    except TypeError as exc:
        if options and "timeout" in str(exc):  # this oracle has no time limit of its own
            return chosen, registry.get_oracle(chosen)
        raise


def run_oracle(oracle: Oracle, kernel: Kernel) -> Verdict:
    """One oracle call; an oracle that cannot analyse the kernel yields an "unknown"."""
    from oracle.base import OracleError, Unknown, Verdict

    try:
        return oracle.check(kernel)
    except OracleError as exc:
        if exc.timeout:
            raise Timeout(str(exc)) from None
        return Verdict(unknowns=[Unknown(str(exc), line=exc.line)])


def emit(text: str) -> None:
    typer.echo(text)


# --------------------------------------------------------------------------- app


#: command name -> module defining ``register(app)``; imported on first use (see docstring)
LAZY_COMMANDS: dict[str, str] = {
    "compare": "autosync.compare_cli",
    "bench": "autosync.bench_cli",
    "lsp": "autosync.lsp",
}


class _LazyGroup(TyperGroup):
    """The app's click group: also finds the commands of :data:`LAZY_COMMANDS`."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        for name, module in LAZY_COMMANDS.items():
            if name not in names and importlib.util.find_spec(module) is not None:
                names.append(name)
        return names

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in LAZY_COMMANDS:
            command = _load_lazy(cmd_name)
        return command


def _load_lazy(name: str) -> Any:
    try:
        module = importlib.import_module(LAZY_COMMANDS[name])
    except ImportError:
        if STATE.debug:
            traceback.print_exc()
        return None
    register = getattr(module, "register", None)
    if register is None:
        return None
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(holder)
    group = typer.main.get_group(holder)
    return group.commands.get(name)


app = typer.Typer(
    cls=_LazyGroup,
    name="autosync",
    help="AutoSync: find data races and barrier divergence in CUDA kernels, and insert the "
         "least costly set of __syncthreads() that provably removes them.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"autosync {version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show Python tracebacks on errors.")] = False,
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    STATE.debug = debug
    if debug:
        for problem in STATE.plugin_errors:
            err(problem)


# --------------------------------------------------------------------------- parse


@app.command()
def parse(
    file: FileArg,
    kernel: KernelOpt = None,
    define: DefineOpt = None,
    include_dir: IncludeOpt = None,
    block_dim: BlockDimOpt = None,
    grid_dim: GridDimOpt = None,
    warp_sync: WarpSyncOpt = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Print the label tree (Sec. III-A): each label's paper-style name, kind and source line."""
    from autosync import report

    with guard(file):
        opts = KernelOptions.build(file, kernel, define, include_dir, block_dim, grid_dim, warp_sync)
        if fmt is Format.sarif:
            raise BadInput("--format sarif is not available for parse (use text or json)", file)
        kernels = load(opts)
        data = [_tree_json(k, file) for k in kernels]
        if fmt is Format.json:
            doc: dict[str, Any] = {"file": file, "kernels": data}
            if len(data) == 1:
                doc["kernel"] = data[0]["name"]
                doc["labels"] = data[0]["labels"]
            emit(report.dumps(doc))
            return
        for i, kdata in enumerate(data):
            if i:
                emit("")
            emit(_tree_text(kdata))


def _tree_json(kernel: Kernel, path: str) -> dict[str, Any]:
    from kpl.labels import START, LabelTree

    tree = LabelTree(kernel)
    lines = kernel.source_text.splitlines()
    main_line = None
    if kernel.body.span is not None and kernel.body.span.line > 0:
        main_line = kernel.body.span.line
    elif kernel.body.source.open_brace >= 0:
        main_line = kernel.source_text.count("\n", 0, kernel.body.source.open_brace) + 1
    labels = []
    for lab in _preorder(tree):
        node = tree.nodes[lab]
        stmt = node.stmt
        if node.kind == START and node.parent is not None:
            stmt = tree.nodes[node.parent].stmt
        span = stmt.span if stmt is not None else None
        if node.kind == "else" and node.block is not None and node.block.span is not None:
            span = node.block.span
        line = span.line if span is not None and span.line > 0 else (main_line if lab == tree.root or (
            node.kind == START and node.parent == tree.root) else None)
        column = span.col if span is not None and span.line > 0 else None
        text = lines[line - 1].strip() if line is not None and 0 < line <= len(lines) else ""
        labels.append({
            "label": lab, "name": tree.name(lab), "kind": node.kind, "line": line, "column": column,
            "parent": node.parent, "children": list(node.children), "loops": list(tree.loops(lab)),
            "conds": list(tree.conds(lab)), "placeable": tree.placeable(lab), "order": tree.order(lab),
            "depth": tree.depth(lab), "synthetic": bool(node.stmt.synthetic) if node.stmt is not None else False,
            "text": text,
        })
    launch = kernel.launch
    return {"name": kernel.name, "file": path, "root": tree.root,
            "launch": {"block_dim": list(launch.block_dim), "grid_dim": list(launch.grid_dim),
                       "warp_sync": launch.warp_sync},
            "labels": labels}


def _preorder(tree: Any) -> list[int]:
    out: list[int] = []
    stack = [tree.root]
    while stack:
        lab = stack.pop()
        out.append(lab)
        stack.extend(reversed(tree.children(lab)))
    return out


def _tree_text(kdata: dict[str, Any]) -> str:
    launch = kdata["launch"]
    dims = "blockDim=[{}] gridDim=[{}]".format(",".join(map(str, launch["block_dim"])),
                                              ",".join(map(str, launch["grid_dim"])))
    if launch["warp_sync"]:
        dims += f" warp-sync={launch['warp_sync']}"
    out = [f"kernel {kdata['name']} ({kdata['file']}, {dims})"]
    rows = []
    for lab in kdata["labels"]:
        left = "  " * lab["depth"] + lab["name"]
        kind = lab["kind"] + ("" if lab["placeable"] else "*")
        where = f"{lab['line']}: {lab['text']}" if lab["line"] is not None else "(synthetic)"
        rows.append((left, kind, where))
    width = max(len(r[0]) for r in rows) + 2
    for left, kind, where in rows:
        out.append(f"{left:<{width}}{kind:<8}{where}")
    out.append("(* = no barrier can be placed after this label)")
    return "\n".join(out)


# --------------------------------------------------------------------------- check


@app.command()
def check(
    file: FileArg,
    kernel: KernelOpt = None,
    define: DefineOpt = None,
    include_dir: IncludeOpt = None,
    block_dim: BlockDimOpt = None,
    grid_dim: GridDimOpt = None,
    warp_sync: WarpSyncOpt = None,
    oracle: OracleOpt = None,
    timeout: TimeoutOpt = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Report data races, barrier divergence and oracle unknowns (exit 0 verified, 1 not)."""
    from autosync import report

    with guard(file):
        opts = KernelOptions.build(file, kernel, define, include_dir, block_dim, grid_dim, warp_sync)
        t0 = time.perf_counter()
        with deadline(timeout):
            kernels = load(opts)
            results: list[tuple[report.Locator, Verdict, str]] = []
            for k in kernels:
                name, orc = pick_oracle(oracle, k, timeout, file)
                results.append((report.Locator(k, file), run_oracle(orc, k), name))
        seconds = time.perf_counter() - t0
        verified = all(v.verified for _, v, _ in results)
        if fmt is Format.json:
            per = [report.verdict_json(loc, v, name) for loc, v, name in results]
            doc: dict[str, Any] = {
                "file": file,
                "kernel": per[0]["kernel"] if len(per) == 1 else None,
                "kernels": per,
                "oracle": ",".join(sorted({name for _, _, name in results})),
                "verified": verified,
                "races": [r for p in per for r in p["races"]],
                "divergences": [d for p in per for d in p["divergences"]],
                "unknowns": [u for p in per for u in p["unknowns"]],
                "findings": [f for p in per for f in p["findings"]],
                "queries": sum(v.queries for _, v, _ in results),
                "seconds": round(seconds, 4),
            }
            emit(report.dumps(doc))
        elif fmt is Format.sarif:
            sarif = [r for loc, v, _ in results for r in report.sarif_results_for_verdict(loc, v)]
            emit(report.dumps(report.sarif_document(sarif, version=version(), artifacts=[file],
                                                    invocation=_invocation(verified))))
        else:
            for loc, v, name in results:
                for line in report.check_lines(loc, v):
                    emit(line)
                emit(report.summary_line(file, loc.kernel.name, v, name))
    raise typer.Exit(EXIT_OK if verified else EXIT_FAIL)


def _invocation(ok: bool) -> dict[str, Any]:
    return {"executionSuccessful": True, "exitCode": EXIT_OK if ok else EXIT_FAIL,
            "commandLine": " ".join(["autosync", *sys.argv[1:]])}


# --------------------------------------------------------------------------- fix


@dataclass
class KernelFix:
    """The outcome of ``fix`` for one kernel of the file."""

    kernel: Kernel
    oracle: str
    result: SynthesisResult
    edits: list[Edit] = field(default_factory=list)


@app.command()
def fix(
    file: FileArg,
    kernel: KernelOpt = None,
    define: DefineOpt = None,
    include_dir: IncludeOpt = None,
    block_dim: BlockDimOpt = None,
    grid_dim: GridDimOpt = None,
    warp_sync: WarpSyncOpt = None,
    oracle: OracleOpt = None,
    timeout: TimeoutOpt = None,
    fmt: FormatOpt = Format.text,
    solver: Annotated[Solver, typer.Option("--solver", help="MaxSAT back end.")] = Solver.rc2,
    lc: Annotated[float, typer.Option("--lc", help="Loop cost factor LC of C(ℓ) (Sec. III-C).")] = 100,
    ic: Annotated[float, typer.Option("--ic", help="Conditional cost factor IC of C(ℓ).")] = 0.5,
    oracle_facts: Annotated[OnOff, typer.Option(
        "--oracle-facts", help="Use the oracle's intra/inter-iteration facts (off = paper-faithful loop).")]
        = OnOff.on,
    naive: Annotated[bool, typer.Option("--naive", help="The naive enumerative baseline (Sec. IV-B).")] = False,
    target: Annotated[str, typer.Option("--target", help="Barrier spelling: cuda or opencl.")] = "cuda",
    output: Annotated[str | None, typer.Option("-o", "--output", help="Write the result here, not in place.")]
        = None,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff; write nothing.")] = False,
) -> None:
    """Insert the least costly verified set of barriers (Algorithm 1); write after an end-to-end check."""
    code = EXIT_OK
    STATE.last_error = None
    try:
        code = _fix_command(file, kernel, define, include_dir, block_dim, grid_dim, warp_sync, oracle, timeout,
                            fmt, solver, lc, ic, oracle_facts, naive, target, output, diff)
    except typer.Exit as exc:
        if exc.exit_code == EXIT_INTERNAL and fmt is not Format.text:
            # machine readers get a document with status "error" (the line is on stderr too)
            from autosync import report

            emit(report.dumps({"file": file, "status": "error", "reason": STATE.last_error,
                               "races": [], "divergences": [], "barriers": [], "cost": 0,
                               "oracle_calls": 0, "iterations": 0, "seconds": 0.0,
                               "solver": solver.value, "oracle": oracle}))
        raise
    raise typer.Exit(code)


def _fix_command(file: str, kernel: str | None, define: list[str] | None, include_dir: list[str] | None,
                 block_dim: str | None, grid_dim: str | None, warp_sync: int | None, oracle: str | None,
                 timeout: float | None, fmt: Format, solver: Solver, lc: float, ic: float,
                 oracle_facts: OnOff, naive: bool, target: str, output: str | None, diff: bool) -> int:
    code = EXIT_INTERNAL
    with guard(file):
        opts = KernelOptions.build(file, kernel, define, include_dir, block_dim, grid_dim, warp_sync)
        if lc <= 0 or ic <= 0:
            raise BadInput("--lc and --ic must be positive", file)
        from autosync.render import available_targets

        if target not in available_targets():
            raise BadInput(f"unknown target '{target}' (known: {', '.join(available_targets())})", file)
        if output is not None and diff:
            raise BadInput("--diff and -o/--output exclude each other", file)
        t0 = time.perf_counter()
        with deadline(timeout):
            outcome = _fix(opts, oracle=oracle, timeout=timeout, solver=solver.value, lc=lc, ic=ic,
                           use_facts=oracle_facts is OnOff.on, naive=naive, target=target)
        outcome.seconds = time.perf_counter() - t0
        code = _finish_fix(outcome, opts, output=output, diff=diff, fmt=fmt, target=target)
    return code


@dataclass
class FixOutcome:
    file: str
    original: str
    status: str  # verified | fixed | unfixable | error
    fixes: list[KernelFix]
    patched: str | None = None
    rendered: Any = None
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    reparsed_verified: bool | None = None
    nvcc: str = "skipped"
    seconds: float = 0.0
    solver: str = "rc2"


def _lc_ic(value: float) -> Fraction | int:
    frac = Fraction(value).limit_denominator(10**6)
    return int(frac) if frac.denominator == 1 else frac


def _fix(opts: KernelOptions, *, oracle: str | None, timeout: float | None, solver: str, lc: float,
         ic: float, use_facts: bool, naive: bool, target: str, text: str | None = None) -> FixOutcome:
    """``autosync fix`` minus the writing, for the file or for ``text`` given as that file
    (the language server passes an unsaved buffer): the one fix pipeline of the project."""
    from autosync.render import apply_edits, plan_edits

    kernels = load(opts, text)
    original = text if text is not None else kernels[0].source_text
    fixes: list[KernelFix] = []
    for k in kernels:
        name, orc = pick_oracle(oracle, k, timeout, opts.file)
        if naive:
            from autosync.naive import naive_synthesize

            res = naive_synthesize(k, orc, lc=_lc_ic(lc), ic=_lc_ic(ic))
        else:
            from autosync.synthesis import synthesize

            res = synthesize(k, orc, solver=solver, lc=_lc_ic(lc), ic=_lc_ic(ic), use_facts=use_facts)
        fixes.append(KernelFix(k, name, res))
    outcome = FixOutcome(opts.file, original, "verified", fixes, solver="none" if naive else solver)
    bad = [f for f in fixes if f.result.status not in ("verified", "fixed")]
    if bad:
        outcome.status = "unfixable"
        outcome.reason = "; ".join(f"kernel '{f.kernel.name}': {f.result.reason or f.result.status}" for f in bad)
        return outcome
    todo = [f for f in fixes if f.result.status == "fixed"]
    if not todo:
        return outcome
    edits = []
    for f in todo:
        f.edits = plan_edits(f.kernel, f.result.labels, target=target, tag=f.kernel.name)
        edits += f.edits
    rendered = apply_edits(original, edits)
    outcome.rendered = rendered
    outcome.patched = rendered.text
    # ---- end-to-end check: re-parse the patched TEXT and verify it with the same oracle
    try:
        again = {k.name: k for k in load(opts, rendered.text)}
    except Exception as exc:
        raise InternalError(f"the patched text does not parse: {exc}") from exc
    for f in todo:
        patched_kernel = again.get(f.kernel.name)
        if patched_kernel is None:
            raise InternalError(f"kernel '{f.kernel.name}' is missing from the patched text")
        _, orc = pick_oracle(f.oracle, patched_kernel, timeout, opts.file)
        verdict = run_oracle(orc, patched_kernel)
        if not verdict.verified:
            raise InternalError(f"the patched kernel '{f.kernel.name}' does not verify with {f.oracle} "
                                f"({len(verdict.races)} races, {len(verdict.divergences)} divergences, "
                                f"{len(verdict.unknowns)} unknowns)")
    outcome.reparsed_verified = True
    if target == "cuda":
        ok, note = nvcc_check(opts, original, rendered.text)
        outcome.nvcc = "ok" if ok else ("skipped" if ok is None else "failed")
        outcome.notes.append(note)
        if ok is False:
            raise InternalError(f"the patched file does not compile: {note}")
    else:
        outcome.notes.append(f"compile check skipped for target {target}")
    outcome.status = "fixed"
    return outcome


def nvcc_check(opts: KernelOptions, original: str, patched: str) -> tuple[bool | None, str]:
    """Compile ``patched`` with ``nvcc --ptx`` (a temp copy next to the file, so local includes
    resolve).  (True, note) compiled; (None, note) skipped -- no nvcc, or the ORIGINAL does not
    compile either; (False, note) the patch broke compilation."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None, "nvcc not found: compile check skipped"
    ok, msg = _nvcc_compile(nvcc, opts, patched)
    if ok:
        return True, "nvcc --ptx: ok"
    ok_orig, _ = _nvcc_compile(nvcc, opts, original)
    if not ok_orig:
        return None, "nvcc: the original file does not compile either: compile check skipped"
    return False, msg


def _nvcc_compile(nvcc: str, opts: KernelOptions, text: str) -> tuple[bool, str]:
    from kpl.header import parse_header

    folder = os.path.dirname(os.path.abspath(opts.file))
    try:
        defines = {**parse_header(text, opts.file).defines, **opts.defines}
    except Exception:  # a header problem was already reported by the front end
        defines = dict(opts.defines)
    with tempfile.TemporaryDirectory(prefix="autosync-nvcc-") as scratch:
        try:
            fd, src = tempfile.mkstemp(prefix=".autosync-", suffix=".cu", dir=folder)
        except OSError:
            fd, src = tempfile.mkstemp(prefix="autosync-", suffix=".cu", dir=scratch)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
                fh.write(text)
            cmd = [nvcc, "--ptx", "-x", "cu", "-I", folder]
            for inc in opts.include_dirs:
                cmd += ["-I", inc]
            for name, value in defines.items():
                cmd.append(f"-D{name}={value}")
            cmd += ["-o", os.path.join(scratch, "out.ptx"), src]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return False, f"nvcc failed to run: {exc}"
            if proc.returncode == 0:
                return True, ""
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
            return False, first.replace(src, opts.file)
        finally:
            try:
                os.unlink(src)
            except OSError:
                pass


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same folder + ``os.replace``, keeping
    the permissions of an existing file: a crash never leaves a half-written kernel."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = None
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _unified_diff(path: str, before: str, after: str) -> str:
    rel = path.lstrip("/")
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def _finish_fix(outcome: FixOutcome, opts: KernelOptions, *, output: str | None, diff: bool, fmt: Format,
                target: str) -> int:
    """Write (or diff) and report; returns the exit code."""
    from autosync import report

    written: str | None = None
    diff_text: str | None = None
    if outcome.status == "fixed" and outcome.patched is not None:
        if diff:
            diff_text = _unified_diff(opts.file, outcome.original, outcome.patched)
        else:
            written = output or opts.file
            write_atomically(written, outcome.patched)
    elif outcome.status == "verified" and output is not None:
        written = output
        write_atomically(output, outcome.original)
    code = {"verified": EXIT_OK, "fixed": EXIT_OK, "unfixable": EXIT_FAIL}.get(outcome.status, EXIT_INTERNAL)
    locs = {f.kernel.name: report.Locator(f.kernel, opts.file) for f in outcome.fixes}
    barrier_rows = _barrier_rows(outcome, locs, output or opts.file)
    if fmt is Format.json:
        emit(report.dumps(_fix_json(outcome, locs, barrier_rows, written, diff_text, target)))
        return code
    if fmt is Format.sarif:
        emit(report.dumps(_fix_sarif(outcome, locs, barrier_rows, target)))
        return code
    # text: with --diff the diff is the output and the report goes to stderr
    say = err if diff else emit
    for f in outcome.fixes:
        loc, res = locs[f.kernel.name], f.result
        verdict = _initial_verdict(res)
        head = f"{opts.file}: kernel '{f.kernel.name}'"
        if res.status == "verified":
            say(f"{head}: already verified (oracle {f.oracle}, {report.plural(res.oracle_calls, 'oracle call')})")
            continue
        found = [report.plural(len(verdict.races), "race")]
        if verdict.divergences:
            found.append(report.plural(len(verdict.divergences), "divergent barrier"))
        if verdict.unknowns:
            found.append(report.plural(len(verdict.unknowns), "unknown"))
        say(f"{head}: {', '.join(found)} found")
        for line in report.check_lines(loc, verdict):
            say("  " + line)
        if res.status != "fixed":
            say(f"{head}: error: cannot fix: {res.reason or res.status}")
            continue
        say(f"{head}: fixed in {report.plural(res.iterations, 'iteration')}, "
            f"{report.plural(res.oracle_calls, 'oracle call')} "
            f"(solver {outcome.solver}, oracle {f.oracle}{', naive' if res.method == 'naive' else ''})")
        for row in barrier_rows:
            if row["kernel"] == f.kernel.name:
                say(f"{row['file']}:{row['line']}: {row['text'].rstrip(';')} (cost {_fmt_cost(row['cost'])})")
        say(f"{head}: total cost {_fmt_cost(report.number(res.cost))}, "
            f"{report.plural(len(res.labels), 'barrier')} inserted")
    if outcome.status == "fixed":
        say(f"end-to-end check: patched text re-parsed and verified; {'; '.join(outcome.notes)}")
    if diff_text is not None:
        emit(diff_text.rstrip("\n"))
    if written:
        say(f"wrote {written}")
    elif outcome.status == "fixed" and diff:
        say("--diff: nothing written")
    elif outcome.status == "unfixable":
        say(f"{opts.file}: file left unchanged")
    say(f"{outcome.seconds:.2f} s")
    return code


def _initial_verdict(res: SynthesisResult) -> Verdict:
    """What the oracle said about the INPUT (a fixed result's ``verdict`` is the final one)."""
    from oracle.base import Divergence, Verdict

    if res.status != "fixed" and res.verdict is not None:
        return res.verdict
    return Verdict(races=list(res.races_initial),
                   divergences=[Divergence(lab) for lab in res.divergences_initial])


def _fmt_cost(value: float | int) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _barrier_rows(outcome: FixOutcome, locs: dict[str, Any], shown_file: str) -> list[dict[str, Any]]:
    from autosync import report

    rows: list[dict[str, Any]] = []
    if outcome.rendered is None:
        return rows
    src_lines = _line_starts(outcome.original)
    seen: set[tuple[int, str]] = set()
    for f in outcome.fixes:
        if f.result.status != "fixed":
            continue
        costs = {lab: c for lab, c in f.result.barriers}
        for bar in outcome.rendered.inserted:
            if bar.tag != f.kernel.name:
                continue
            if (bar.offset, f.kernel.name) in seen:
                continue
            seen.add((bar.offset, f.kernel.name))
            oline, ocol = _line_col(src_lines, bar.original_offset)
            rows.append({
                "kernel": f.kernel.name, "file": shown_file, "line": bar.line, "column": bar.column,
                "anchor": bar.anchor, "after": locs[f.kernel.name].name(bar.anchor),
                "cost": report.number(costs.get(bar.anchor, 0)), "text": bar.text,
                "original_offset": bar.original_offset, "original_line": oline, "original_column": ocol,
            })
    rows.sort(key=lambda r: (r["line"], r["column"]))
    return rows


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]


def _line_col(starts: list[int], offset: int) -> tuple[int, int]:
    import bisect

    i = bisect.bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i] + 1


def _fix_json(outcome: FixOutcome, locs: dict[str, Any], rows: list[dict[str, Any]], written: str | None,
              diff_text: str | None, target: str) -> dict[str, Any]:
    from autosync import report

    per: list[dict[str, Any]] = []
    for f in outcome.fixes:
        res, loc = f.result, locs[f.kernel.name]
        verdict = _initial_verdict(res)
        per.append({
            "kernel": f.kernel.name, "status": res.status if res.status != "unknown" else "unfixable",
            "reason": res.reason, "oracle": f.oracle,
            "races": [report.race_json(loc, r) for r in verdict.races],
            "divergences": [report.divergence_json(loc, d) for d in verdict.divergences],
            "unknowns": [report.unknown_json(loc, u) for u in verdict.unknowns],
            "barriers": [r for r in rows if r["kernel"] == f.kernel.name],
            "cost": report.number(res.cost), "oracle_calls": res.oracle_calls, "iterations": res.iterations,
            "seconds": round(res.seconds, 4), "method": res.method,
        })
    return {
        "file": outcome.file,
        "kernel": per[0]["kernel"] if len(per) == 1 else None,
        "status": outcome.status,
        "reason": outcome.reason,
        "races": [r for p in per for r in p["races"]],
        "divergences": [d for p in per for d in p["divergences"]],
        "unknowns": [u for p in per for u in p["unknowns"]],
        "barriers": rows,
        "cost": report.number(sum((Fraction(f.result.cost) for f in outcome.fixes), Fraction(0))),
        "oracle_calls": sum(f.result.oracle_calls for f in outcome.fixes),
        "iterations": sum(f.result.iterations for f in outcome.fixes),
        "seconds": round(outcome.seconds, 4),
        "solver": outcome.solver,
        "oracle": ",".join(sorted({f.oracle for f in outcome.fixes})),
        "target": target,
        "check": {"reparsed_verified": outcome.reparsed_verified, "nvcc": outcome.nvcc, "notes": outcome.notes},
        "written": written,
        "diff": diff_text,
        "kernels": per,
    }


def _fix_sarif(outcome: FixOutcome, locs: dict[str, Any], rows: list[dict[str, Any]], target: str) -> dict[str, Any]:
    from autosync import report

    fixes: list[dict[str, Any]] = []
    if outcome.status == "fixed" and outcome.rendered is not None:
        starts = _line_starts(outcome.original)
        grouped: dict[int, str] = {}
        for edit in outcome.rendered.edits:  # sorted; merge insertions at one offset in order
            grouped[edit.start] = grouped.get(edit.start, "") + edit.replacement
        insertions = [(off, *_line_col(starts, off), text) for off, text in sorted(grouped.items())]
        total = sum((Fraction(f.result.cost) for f in outcome.fixes), Fraction(0))
        fixes = [report.sarif_fix(outcome.file, f"insert {report.plural(len(rows), 'barrier')} "
                                  f"(AutoSync, total cost {_fmt_cost(report.number(total))})", insertions)]
    results: list[report.SarifResult] = []
    for f in outcome.fixes:
        loc = locs[f.kernel.name]
        for res in report.sarif_results_for_verdict(loc, _initial_verdict(f.result)):
            if f.result.status == "fixed":
                res.fixes = fixes
            results.append(res)
        if f.result.status not in ("verified", "fixed"):
            results.append(report.SarifResult("unfixable", f"cannot fix: {f.result.reason or f.result.status}",
                                              None, properties={"kernel": f.kernel.name}))
    doc = report.sarif_document(results, version=version(), artifacts=[outcome.file],
                                invocation=_invocation(outcome.status in ("verified", "fixed")))
    doc["runs"][0]["properties"] = {"status": outcome.status, "target": target,
                                    "barriers": rows, "solver": outcome.solver}
    return doc


# --------------------------------------------------------------------------- plug-ins


def register_plugins(target: typer.Typer = app) -> None:
    """Register every ``autosync/commands/<name>.py`` that defines ``register(app)``."""
    try:
        package = importlib.import_module("autosync.commands")
    except ImportError:
        return
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"autosync.commands.{info.name}")
            register = module.register
            register(target)
        except Exception:  # noqa: BLE001 - one broken plug-in must not break the CLI
            STATE.plugin_errors.append(f"autosync: plug-in command '{info.name}' not loaded:\n"
                                       + traceback.format_exc())


register_plugins(app)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``autosync = autosync.cli:main``)."""
    STATE.hard_exit = True
    try:
        app(args=argv, prog_name="autosync")
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a command that fails to load
        if STATE.debug:
            traceback.print_exc()
        err(f"autosync: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)")
        raise SystemExit(EXIT_INTERNAL) from None


__all__ = ["app", "main", "KernelOptions", "load", "pick_oracle", "run_oracle", "guard", "deadline",
           "BadInput", "InternalError", "Timeout", "Format", "write_atomically", "nvcc_check", "version"]

_ = Path  # re-exported type for plug-ins that build paths
