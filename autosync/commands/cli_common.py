"""What every ``autosync`` command shares: exit codes, the one-line error guard, and the flags.

The kernel flags (``--kernel``, ``-D``, ``-I``, ``--blockDim``, ``--gridDim``, ``--warp-sync``, ``-p``)
are declared once here and added to a command by :func:`kernel_flags`; the other shared flags
(``--oracle``, ``--timeout``, ``--format``, ``--solver``, ``--lc``, ``--ic``,
``--oracle-facts``) are ``Annotated`` aliases that every command reuses, so ``parse``,
``check``, ``fix``, ``compare`` and ``bench`` spell and document them identically.

Exit codes, the same for every command: 0 ok, 1 races / divergence / an "unknown" remain or
the kernel cannot be fixed, 2 bad input or usage, 3 internal error or ``--timeout`` reached.
Every failure is ONE line ``file:line:col: error: …`` on stderr (:func:`guard`); a Python
traceback only with ``--debug``.  Ctrl-C exits 130 (``autosync: interrupted``), writing nothing.

No heavy imports here (the front end, z3, the MaxSAT back ends load inside the commands), so
``autosync --help`` stays fast.
"""

from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Annotated, Any

import typer

from autosync.algorithm.cost import DEFAULT_WARP_COST
from autosync.pipeline.core import (
    PROGRESS_AFTER_S,
    BadInput,
    CancelToken,
    Interrupted,
    KernelOptions,
    Timeout,
    Unsupported,
)

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
#: Ctrl-C, as a shell reports a process killed by SIGINT (128 + 2)
EXIT_INTERRUPTED = 130


def version() -> str:
    try:
        from importlib.metadata import version as _version

        return _version("autosync")
    except Exception:  # pragma: no cover - running from a source tree without metadata
        return "0+unknown"


# --------------------------------------------------------------------------- state and output


@dataclass
class _State:
    #: ``--debug``: print Python tracebacks on errors
    debug: bool = False
    #: True when running as a real process (``cli.main``): a hard watchdog may ``os._exit`` on
    #: ``--timeout`` when a solver call does not return to Python in time.
    hard_exit: bool = False
    #: the last failure line printed by :func:`guard`
    last_error: str | None = None
    #: the last failure :func:`guard` turned into an exit code, as data
    last_failure: Failure | None = None
    #: a progress line is on the terminal (to be cleared)
    progress_shown: bool = False
    #: while a list, what :func:`emit` / :func:`err` print is also kept here as (stream, text)
    #: -- the result cache stores a single-file ``check``'s output this way (progress lines,
    #: written to the terminal directly, are not kept)
    record: list[tuple[str, str]] | None = None


STATE = _State()


def err(line: str) -> None:
    typer.echo(line, err=True)
    if STATE.record is not None:
        STATE.record.append(("stderr", line + "\n"))
    if "error" in line:
        STATE.last_error = line


def emit(text: str) -> None:
    typer.echo(text)
    if STATE.record is not None:
        STATE.record.append(("stdout", text + "\n"))


def progress_line(token: CancelToken | None, seconds: float) -> None:
    """The progress line of a long run (``run_guarded``'s ``progress``), on a terminal only:
    which kernel, which CEGIS iteration, how many oracle calls; overwritten in place, cleared
    at the end (``token`` None) so the verdict starts on a clean line.  Never on a pipe or a
    file: logs and ``--format json`` stay clean."""
    import sys

    if not sys.stderr.isatty():
        return
    if token is None:
        if STATE.progress_shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            STATE.progress_shown = False
        return
    if seconds < PROGRESS_AFTER_S:
        return
    where = f"{token.kernel} ({token.index}/{token.total})" if token.kernel else "parsing"
    iteration = f"iteration {token.iteration + 1}, " if token.iteration else ""
    sys.stderr.write(f"\r\033[Kautosync: {where}: {iteration}{token.oracle_calls} oracle calls, {seconds:.1f} s")
    sys.stderr.flush()
    STATE.progress_shown = True


@dataclass
class Failure:
    """What went wrong, as data: the ``error`` member of a ``--format json`` document and the
    notification of a SARIF one (the text line is on stderr as well)."""

    message: str
    exit: int
    file: str | None = None
    line: int | None = None
    col: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col, "message": self.message, "exit": self.exit}


#: ``(failure) -> document`` for a machine-readable format, set per command by :func:`guard`
ErrorDocument = Callable[[Failure], dict[str, Any]]


def error_json(base: dict[str, Any] | None = None) -> ErrorDocument:
    """``--format json``: the command's usual document (``base``) with an ``error`` member."""
    def document(failure: Failure) -> dict[str, Any]:
        doc = {**(base or {"file": failure.file}), "error": failure.as_json()}
        if "reason" in doc and doc["reason"] is None:  # fix's document says why in "reason"
            doc["reason"] = failure.message
        return doc

    return document


def error_sarif(failure: Failure) -> dict[str, Any]:
    """``--format sarif``: a valid SARIF log with no results and the failure as the run's tool
    execution notification (``executionSuccessful: false``)."""
    from autosync.report import sarif as report_sarif

    note: dict[str, Any] = {"level": "error", "message": {"text": failure.message},
                            "properties": {"exit": failure.exit}}
    if failure.file:
        region = {"startLine": failure.line, "startColumn": failure.col or 1} if failure.line else None
        physical: dict[str, Any] = {"artifactLocation": {"uri": failure.file}}
        if region:
            physical["region"] = region
        note["locations"] = [{"physicalLocation": physical}]
    invocation = {"executionSuccessful": False, "exitCode": failure.exit, "toolExecutionNotifications": [note]}
    return report_sarif.sarif_document([], version=version(), artifacts=[failure.file] if failure.file else [],
                                       invocation=invocation)


def _fail(failure: Failure, line: str, document: ErrorDocument | None) -> typer.Exit:
    err(line)
    STATE.last_failure = failure
    if document is not None:
        import json

        emit(json.dumps(document(failure), indent=2, ensure_ascii=False))
    return typer.Exit(failure.exit)


@contextmanager
def guard(file: str | None = None, document: ErrorDocument | None = None) -> Iterator[None]:
    """Turn every failure into one ``error:`` line on stderr and the documented exit code; with
    ``document`` (``--format json``/``sarif``), also ONE document on stdout saying so."""
    from kpl.errors import KplError
    from oracle.base import OracleError

    try:
        yield
    except typer.Exit:
        raise
    except (Interrupted, KeyboardInterrupt):
        err("autosync: interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except KplError as exc:
        if STATE.debug:
            traceback.print_exc()
        raise _fail(Failure(exc.message, EXIT_BAD_INPUT, exc.file or file, exc.line, exc.col), exc.format(),
                    document) from None
    except (BadInput, Unsupported) as exc:
        if STATE.debug:
            traceback.print_exc()
        where = exc.file or file
        line = getattr(exc, "line", 0) or None
        col = getattr(exc, "col", 0) or None
        message = exc.message if isinstance(exc, BadInput) else f"unsupported: {exc.message}"
        raise _fail(Failure(message, EXIT_BAD_INPUT, where, line, col), exc.format(), document) from None
    except Timeout as exc:
        message = f"timeout: {exc}"
        raise _fail(Failure(message, EXIT_INTERNAL, file), f"{file + ': ' if file else ''}error: {message}",
                    document) from None
    except OracleError as exc:
        if STATE.debug:
            traceback.print_exc()
        loc = f"{file}:{exc.line}:{exc.col or 1}: " if file and exc.line else (f"{file}: " if file else "")
        message = f"{'timeout' if exc.timeout else 'oracle error'}: {exc}"
        raise _fail(Failure(message, EXIT_INTERNAL, file, exc.line, exc.col), f"{loc}error: {message}",
                    document) from None
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if STATE.debug:
            traceback.print_exc()
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        message = f"internal error: {type(exc).__name__}: {text}"
        raise _fail(Failure(message, EXIT_INTERNAL, file),
                    f"{file + ': ' if file else ''}{message} (rerun with --debug for a traceback)",
                    document) from None


def check_timeout(value: float | None, file: str | None) -> float | None:
    """``--timeout``: a positive number of seconds (a non-number is refused by the parser)."""
    if value is not None and not value > 0:
        raise BadInput(f"bad --timeout value '{value:g}': expected a positive number of seconds", file)
    return value


# --------------------------------------------------------------------------- shared flags


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
KernelOpt = Annotated[str | None, typer.Option("--kernel", "-k", help="Pick one __global__ kernel by name; 'k<32>' instantiates the kernel template k.")]
DefineOpt = Annotated[list[str] | None, typer.Option(
    "-D", "--define", help="Preprocessor define NAME[=VALUE] (repeatable).")]
IncludeOpt = Annotated[list[str] | None, typer.Option(
    "-I", "--include-dir", help="Folder searched for #include \"…\" (repeatable).")]
ForcedIncludeOpt = Annotated[list[str] | None, typer.Option(
    "--include", help="File read before the kernel file, like -include of nvcc/gcc (repeatable).",
    metavar="FILE")]
BlockDimOpt = Annotated[str | None, typer.Option(
    "--blockDim", "--block-dim", help="Threads per block: 256, [16,8] or 16,8 (overrides the header).")]
GridDimOpt = Annotated[str | None, typer.Option(
    "--gridDim", "--grid-dim", help="Blocks per grid: 64, [4,4] or 4,4 (overrides the header).")]
BuildDirOpt = Annotated[str | None, typer.Option(
    "-p", "--build-dir", help="Folder of compile_commands.json (default: searched upward from the file).")]
WarpSyncOpt = Annotated[int | None, typer.Option(
    "--warp-sync", help="Warp-synchronous semantics with this warp size (e.g. 32).")]
NoBenignOpt = Annotated[bool | None, typer.Option(
    "--no-benign", help="Report two writes of the same value to one cell as a race (GPUVerify's --no-benign).")]
OracleOpt = Annotated[str | None, typer.Option(
    "--oracle", help="Oracle: sdv (default), dynamic, named (default for named barriers).")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--timeout", help="Give up after SECONDS (exit 3).", metavar="SECONDS")]
#: the default ``--timeout`` of ``check`` and ``fix`` (shown in ``--help``)
DEFAULT_TIMEOUT = 300.0
ClangOpt = Annotated[str | None, typer.Option(
    "--clang", metavar="PATH", help="The clang to read CUDA with (default: the pinned clang of the "
    "ziglang package; also AUTOSYNC_CLANG).  Needs clang 17 or newer with CUDA support.")]
LanguageOpt = Annotated[str | None, typer.Option(
    "--language", help="Language of the file: cuda or opencl (default: opencl for a .cl file, "
    "else cuda).")]
ClStdOpt = Annotated[str | None, typer.Option(
    "--cl-std", help="OpenCL C version of an OpenCL file: 1.2, 2.0 (default) or 3.0.")]
FormatOpt = Annotated[Format, typer.Option("--format", help="Output format.")]
SolverOpt = Annotated[Solver, typer.Option("--solver", help="MaxSAT back end.")]
LcOpt = Annotated[float, typer.Option("--lc", help="Loop cost factor LC of C(ℓ) (Sec. III-C).")]
IcOpt = Annotated[float, typer.Option("--ic", help="Conditional cost factor IC of C(ℓ).")]
WarpCostOpt = Annotated[float, typer.Option(
    "--warp-barrier-cost", metavar="WC",
    help="Cost of a __syncwarp() relative to a __syncthreads() at the same position: fix may "
         "use one where a race is between lanes of one warp (not under --warp-sync).  Default "
         "0.05, from measurement on an H100 (microbench/barrier_cost.py: 0.74 vs 24.9 cycles "
         "per barrier at 256 threads; see autosync/algorithm/cost.py).  0: __syncthreads() only, as "
         "[AutoSync].")]
#: the default ``--warp-barrier-cost`` (WC of :mod:`autosync.algorithm.cost`)
DEFAULT_WARP_BARRIER_COST = float(DEFAULT_WARP_COST)


def warp_cost_arg(value: float, file: str) -> Fraction | int | None:
    """``--warp-barrier-cost`` as the synthesizer's ``warp_cost`` (None: warp barriers off)."""
    from autosync.pipeline.core import BadInput, lc_ic

    if value < 0:
        raise BadInput("--warp-barrier-cost must be 0 (off) or positive", file)
    return None if value == 0 else lc_ic(value)
MorePathsArg = Annotated[list[str] | None, typer.Argument(
    help="More files or folders (folders: every *.cu, *.cuh, *.cl inside).", show_default=False)]
JobsOpt = Annotated[int | None, typer.Option("-j", "--jobs", help="Files checked in parallel (default: all cores).")]
ExcludeOpt = Annotated[list[str] | None, typer.Option("--exclude", help="Skip paths matching GLOB (repeatable).",
                                                      metavar="GLOB")]
ShardOpt = Annotated[str | None, typer.Option("--shard", help="Check only the K-th of N slices of the files.",
                                              metavar="K/N")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the result cache.")]
TimingsOpt = Annotated[bool, typer.Option(
    "--timings", help="Print on stderr where the time went, stage by stage (imports, clang, translation, "
                      "each oracle call with its queries, ...); JSON output gets a 'timings' object.")]
ExplainOpt = Annotated[bool, typer.Option(
    "--explain", help="Print every assumption each verdict rests on: the launch and where it came from, "
    "its relations to the parameters, non-aliasing pointers, no signed overflow.")]
OracleFactsOpt = Annotated[OnOff, typer.Option(
    "--oracle-facts", help="Use the oracle's optional facts: intra/inter-iteration races, guards "
    "true for every thread (off = paper-faithful loop and cost model).")]


@dataclass(frozen=True)
class KernelFlags:
    """The kernel flags as typed on the command line; :meth:`options` validates them (inside
    the command's :func:`guard`, so a bad ``--blockDim`` is one ``error:`` line)."""

    file: str
    kernel: str | None = None
    define: list[str] | None = None
    include_dir: list[str] | None = None
    block_dim: str | None = None
    grid_dim: str | None = None
    warp_sync: int | None = None
    build_dir: str | None = None
    include: list[str] | None = None
    no_benign: bool | None = None
    clang: str | None = None
    language: str | None = None
    cl_std: str | None = None

    def argv(self) -> list[str]:
        """The flags again as command-line arguments (for a batch's worker)."""
        out = ["--kernel", self.kernel] if self.kernel else []
        out += [a for d in self.define or [] for a in ("-D", d)] + [a for i in self.include_dir or [] for a in ("-I", i)]
        out += ["--blockDim", self.block_dim] if self.block_dim else []
        out += ["--gridDim", self.grid_dim] if self.grid_dim else []
        out += ["-p", self.build_dir] if self.build_dir else []
        out += [a for f in self.include or [] for a in ("--include", f)]
        out += ["--no-benign"] if self.no_benign else []
        out += ["--clang", self.clang] if self.clang else []
        out += ["--language", self.language] if self.language else []
        out += ["--cl-std", self.cl_std] if self.cl_std else []
        return out + (["--warp-sync", str(self.warp_sync)] if self.warp_sync is not None else [])

    def options(self) -> KernelOptions:
        return KernelOptions.build(self.file, self.kernel, self.define, self.include_dir, self.block_dim,
                                   self.grid_dim, self.warp_sync, self.build_dir, self.include,
                                   benign=not self.no_benign, clang=self.clang,
                                   language=self.language, cl_std=self.cl_std)


#: the kernel flags, declared once: (parameter name, typer annotation); defaults are all None
_KERNEL_FLAGS: list[tuple[str, Any]] = [
    ("kernel", KernelOpt), ("define", DefineOpt), ("include_dir", IncludeOpt), ("block_dim", BlockDimOpt),
    ("grid_dim", GridDimOpt), ("warp_sync", WarpSyncOpt), ("build_dir", BuildDirOpt), ("include", ForcedIncludeOpt),
    ("no_benign", NoBenignOpt), ("clang", ClangOpt), ("language", LanguageOpt), ("cl_std", ClStdOpt),
]


def kernel_flags(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give a typer command the kernel flags.  ``fn`` has a ``file`` argument and a ``flags:
    KernelFlags`` parameter; the command typer sees has the kernel flags right after ``file``
    instead of ``flags``, and ``fn`` receives them bundled as :class:`KernelFlags`."""
    signature = inspect.signature(fn, eval_str=True)
    params: list[inspect.Parameter] = []
    for param in signature.parameters.values():
        if param.name == "flags":
            continue
        params.append(param)
        if param.name == "file":
            params += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                         annotation=annotation) for name, annotation in _KERNEL_FLAGS]
    names = [name for name, _ in _KERNEL_FLAGS]

    @functools.wraps(fn)
    def command(**kwargs: Any) -> Any:
        flags = KernelFlags(kwargs["file"], **{name: kwargs.pop(name, None) for name in names})
        return fn(flags=flags, **kwargs)

    del command.__wrapped__  # typer must see the signature below, not fn's
    command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command
