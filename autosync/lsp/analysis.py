"""The editor-independent half of ``autosync lsp``: check, fix and compare one document TEXT.

Why a module of its own: the language server must offer a quick-fix whose edit is *exactly*
the text ``autosync fix`` writes (issue 7), so both must share one code path.  Everything here
works on ``(path, text, options)`` -- the editor's unsaved buffer, not the file on disk -- and
returns plain, picklable dataclasses, so the server can run it in a separate process that it
may kill when a newer version of the document arrives or a time limit passes.

Three entry points:

* :func:`analyze` -- GETRACES/divergences of every kernel (one oracle call each, the minimal
  oracle interface of [AutoSync] Sec. V) turned into editor problems with 0-based UTF-16
  ranges (the LSP's default position encoding);
* :func:`fix_file` / :func:`fix_text` -- :func:`autosync.pipeline.core.fix_kernels`, the one fix
  pipeline (SYNTHESIZE of [AutoSync] Alg. 1 per kernel, rendering into the ORIGINAL text, the
  end-to-end re-parse and re-verification); ``None`` when anything fails, so an editor never
  receives an unverified patch;
* :func:`redundant_barriers` -- the ``compare`` rule of [AutoSync] Sec. IV-B ("we first remove all barrier
  statements from the baseline version", then synthesize): a developer barrier the optimal
  placement does not contain is a candidate; it is reported only when the kernel without THAT
  one barrier still verifies, so the "Remove redundant barrier" quick-fix can never introduce a
  race (an optimal placement may put an equivalent barrier elsewhere, in which case deleting
  the developer's copy alone is not safe).

Why one module of ~550 lines: the three entry points share the editor's vocabulary --
:class:`Options`, UTF-16 positions (:class:`LineIndex`), :class:`Problem` and the label ->
range mapping -- and each is short; splitting would scatter that vocabulary.

Kernels are loaded and oracles chosen by :mod:`autosync.pipeline` (:func:`~autosync.pipeline.core.load`,
:func:`~autosync.pipeline.core.pick_oracle`), exactly as ``autosync check`` does, so the editor and
the command line never judge a kernel with different oracles.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autosync.pipeline import core as pipeline

if TYPE_CHECKING:
    from kpl.ast import Kernel
    from oracle.base import Oracle

from kpl.lineindex import LineIndex as TextLineIndex
from kpl.placement import Placement
from oracle.base import inter_block_why

#: oracle name meaning "sdv, or the named-barrier checker for kernels that use bar.sync"
AUTO_ORACLE = "auto"

ERROR = "error"
WARNING = "warning"
INFORMATION = "information"
HINT = "hint"


# --------------------------------------------------------------------------- options


def _dims(value: Any) -> tuple[int, int, int] | None:
    """``256``, ``"[16,8]"``, ``[16, 8]`` -> a 3-tuple (missing dimensions are 1)."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return (value, 1, 1)
    if isinstance(value, str):
        parts = [p for p in value.strip().strip("[]()").split(",") if p.strip()]
        value = [int(p) for p in parts]
    vals = [int(v) for v in value] + [1, 1]
    return (vals[0], vals[1], vals[2])


@dataclass(frozen=True)
class Options:
    """What ``autosync fix``/``check`` take as flags, plus the server's own knobs.

    ``oracle`` ``auto`` picks ``named`` for kernels that use named barriers and ``sdv``
    otherwise (issue 6, item 4).  ``timeout`` bounds one analysis (seconds), ``debounce`` the
    pause after a keystroke before analysing, ``isolation`` is ``process`` (analyses run in a
    killable child process) or ``thread``.
    """

    oracle: str = AUTO_ORACLE
    solver: str = "rc2"
    lc: float | int | str = 100
    ic: float | int | str = 0.5
    use_facts: bool = True
    target: str = "cuda"
    block_dim: tuple[int, int, int] | None = None
    grid_dim: tuple[int, int, int] | None = None
    warp_sync: int | None = None
    defines: tuple[tuple[str, str], ...] = ()
    include_dirs: tuple[str, ...] = ()
    timeout: float = 20.0
    debounce: float = 0.5
    isolation: str = "process"
    redundant: bool = True

    @classmethod
    def from_dict(cls, raw: Any) -> tuple[Options, list[str]]:
        """Options from LSP ``initializationOptions`` (camelCase or snake_case, optionally
        nested under ``"autosync"``).  Bad values are skipped and reported, never fatal: a typo
        in an editor's config must not kill the server."""
        problems: list[str] = []
        if not isinstance(raw, Mapping):
            return cls(), ([] if raw is None else [f"initializationOptions must be an object, got {raw!r}"])
        if isinstance(raw.get("autosync"), Mapping):
            raw = raw["autosync"]
        aliases = {
            "oracle": "oracle", "solver": "solver", "lc": "lc", "ic": "ic",
            "oracleFacts": "use_facts", "oracle_facts": "use_facts", "useFacts": "use_facts",
            "use_facts": "use_facts", "target": "target", "blockDim": "block_dim",
            "block_dim": "block_dim", "gridDim": "grid_dim", "grid_dim": "grid_dim",
            "warpSync": "warp_sync", "warp_sync": "warp_sync", "defines": "defines",
            "includeDirs": "include_dirs", "include_dirs": "include_dirs", "timeout": "timeout",
            "debounce": "debounce", "isolation": "isolation",
            "redundantBarriers": "redundant", "redundant_barriers": "redundant", "redundant": "redundant",
        }
        values: dict[str, Any] = {}
        for key, value in raw.items():
            name = aliases.get(key)
            if name is None:
                problems.append(f"unknown option '{key}' ignored")
                continue
            try:
                values[name] = cls._convert(name, value)
            except (TypeError, ValueError) as exc:
                problems.append(f"option '{key}': {exc}; default kept")
        return cls(**values), problems

    @staticmethod
    def _convert(name: str, value: Any) -> Any:
        if name in ("block_dim", "grid_dim"):
            return _dims(value)
        if name == "warp_sync":
            return None if value in (None, "", 0, False) else int(value)
        if name in ("timeout", "debounce"):
            number = float(value)
            if number < 0 or (name == "timeout" and number == 0):
                raise ValueError(f"must be positive, got {value!r}")
            return number
        if name in ("use_facts", "redundant"):
            if isinstance(value, str):
                return value.lower() not in ("off", "false", "0", "no")
            return bool(value)
        if name == "defines":
            if isinstance(value, Mapping):
                return tuple((str(k), str(v)) for k, v in value.items())
            out = []
            for item in value:
                key, _, val = str(item).partition("=")
                out.append((key, val or "1"))
            return tuple(out)
        if name == "include_dirs":
            if isinstance(value, str):
                return (value,)
            return tuple(str(v) for v in value)
        if name == "isolation":
            if value not in ("process", "thread"):
                raise ValueError(f"must be 'process' or 'thread', got {value!r}")
            return value
        if name in ("lc", "ic"):
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise TypeError(f"must be a number, got {value!r}")
            return value
        return str(value)

    def kernel_options(self, path: str) -> pipeline.KernelOptions:
        """The front-end settings, as ``autosync check``/``fix`` would take them as flags."""
        return pipeline.KernelOptions(path, None, dict(self.defines), list(self.include_dirs),
                                      self.block_dim, self.grid_dim, self.warp_sync)

    @property
    def oracle_flag(self) -> str | None:
        """``--oracle`` as the pipeline takes it: None lets it choose (``auto``)."""
        return None if self.oracle == AUTO_ORACLE else self.oracle


# --------------------------------------------------------------------------- positions


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: LSP positions count those by default."""
    return len(text.encode("utf-16-le")) // 2


Position = tuple[int, int]  # (0-based line, UTF-16 column)


class LineIndex(TextLineIndex):
    """Character offsets and 1-based (line, column) of the front end -> LSP positions."""

    def _line_text(self, line0: int) -> str:
        return self.line_text(line0 + 1).rstrip("\r")

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line0 = self.line_index(offset)
        return (line0, utf16_len(self.text[self.starts[line0]:offset]))

    def from_line_col(self, line: int | None, col: int | None) -> Position:
        """1-based line/column (column counted in characters) -> LSP position, clamped."""
        line0 = max(0, min((line or 1) - 1, len(self.starts) - 1))
        content = self._line_text(line0)
        col0 = max(0, min((col or 1) - 1, len(content)))
        return (line0, utf16_len(content[:col0]))

    def line_range(self, line: int | None, col: int | None = None) -> tuple[Position, Position]:
        """From ``col`` (or the first non-blank character) to the end of the line."""
        start = self.from_line_col(line, col)
        content = self._line_text(start[0])
        if col is None:
            stripped = len(content) - len(content.lstrip())
            start = (start[0], utf16_len(content[:stripped]))
        end = (start[0], utf16_len(content))
        if end <= start:  # an empty line or a column at its end: mark one character
            end = (start[0], start[1] + 1)
        return start, end

    def end(self) -> Position:
        return self.position(len(self.text))


# --------------------------------------------------------------------------- results


@dataclass
class Related:
    """``relatedInformation``: another place (maybe in another file) tied to a problem."""

    path: str
    start: Position
    end: Position
    message: str


@dataclass
class Problem:
    """One diagnostic, editor-neutral.  ``fixable`` marks problems for which the "Insert
    optimal barriers" quick-fix is offered; ``edit`` is the deletion ``(start, end, text)`` of
    a redundant barrier."""

    kind: str
    severity: str
    message: str
    start: Position
    end: Position
    related: list[Related] = field(default_factory=list)
    fixable: bool = False
    edit: tuple[Position, Position, str] | None = None
    kernel: str = ""


@dataclass
class Analysis:
    """What :func:`analyze` found in one document version."""

    problems: list[Problem]
    kernels: list[str] = field(default_factory=list)
    fixable: bool = False
    has_barriers: bool = False
    all_verified: bool = False
    seconds: float = 0.0


@dataclass
class QuickFix:
    """What the editor keeps of a :class:`autosync.pipeline.outcome.FixOutcome` (small and picklable:
    it crosses from the analysis process to the server): ``status`` is ``verified`` (``text``
    is the input, unchanged), ``fixed`` (``text`` is the patched, re-verified file) or
    ``unfixable``/``error`` (``text`` is None, ``reason`` says why)."""

    status: str
    text: str | None
    reason: str | None = None
    barriers: list[tuple[str, Placement]] = field(default_factory=list)  # (kernel, its placement)
    seconds: float = 0.0


@dataclass
class Improvement:
    """Phase two of the server: the quick-fix text and the redundant developer barriers."""

    fix: QuickFix | None
    redundant: list[Problem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def load(path: str, text: str, options: Options) -> list[Kernel]:
    """The kernels of the buffer ``text`` (raises KplError), via :func:`autosync.pipeline.core.load`."""
    return pipeline.load(options.kernel_options(path), text)


def pick_oracle(kernel: Kernel, options: Options, path: str) -> tuple[str, Oracle]:
    """The oracle ``autosync check`` would use for ``kernel`` (:func:`autosync.pipeline.core.pick_oracle`)."""
    return pipeline.pick_oracle(options.oracle_flag, kernel, options.timeout, path)


def _same_file(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


class _Locator:
    """Label -> range in the document, climbing to the enclosing statement (the call site of
    an inlined ``__device__`` function) when the label's text is in another file."""

    def __init__(self, path: str, index: LineIndex, kernel: Any) -> None:
        from kpl.labels import LabelTree

        self.path = path
        self.index = index
        self.tree = LabelTree(kernel)

    def span_range(self, span: Any) -> tuple[Position, Position]:
        if span.start >= 0 and span.end > span.start:
            return self.index.position(span.start), self.index.position(span.end)
        start = self.index.from_line_col(span.line, span.col)
        if span.end_line:
            end = self.index.from_line_col(span.end_line, span.end_col)
            if end > start:
                return start, end
        return self.index.line_range(span.line, span.col)

    def span(self, label: int | None) -> Any:
        """The span of ``label``'s statement in THIS document, or None."""
        seen = 0
        while label is not None and label in self.tree.nodes and seen < 1000:
            seen += 1
            stmt = self.tree.stmt(label)
            span = getattr(stmt, "span", None)
            if span is not None and _same_file(span.file, self.path):
                return span
            label = self.tree.parent(label)
        return None

    def range(self, label: int | None) -> tuple[Position, Position]:
        span = self.span(label)
        if span is None:
            return self.index.line_range(1)
        return self.span_range(span)

    def line(self, label: int | None) -> int | None:
        span = self.span(label)
        return span.line if span is not None else None


def _race_problems(kernel: Any, loc: _Locator, race: Any, path: str) -> Problem:
    """A race diagnostic on the LATER access (text order), related to the earlier one."""
    witness = f" ({race.witness.describe(kernel.language)})" if race.witness is not None else ""
    space = "" if str(getattr(race.space, "value", race.space)) == "shared" else f" {race.space.value}"
    start, end = loc.range(race.second)
    if race.cross_block:  # between blocks: no block barrier orders them, so no quick-fix either
        other = loc.line(race.first) if race.first != race.second else None
        where = f" with line {other}" if other is not None else ""
        return Problem("race-between-blocks", ERROR,
                       f"possible {race.kind} race between blocks on{space} '{race.array}'{where}"
                       f"{witness}; {inter_block_why(kernel.language)}", start, end, kernel=kernel.name)
    if race.first == race.second:
        return Problem("self-race", ERROR,
                       f"{race.kind} race on{space} '{race.array}' between two threads executing this "
                       f"statement{witness}; no barrier placement can fix it",
                       start, end, kernel=kernel.name)
    other_line = loc.line(race.first)
    where = f" with line {other_line}" if other_line is not None else ""
    fstart, fend = loc.range(race.first)
    return Problem(
        "race", ERROR,
        f"possible {race.kind} race on{space} '{race.array}'{where}{witness}",
        start, end,
        related=[Related(path, fstart, fend, f"the other access ({race.kinds[0]} of '{race.array}')")],
        fixable=True, kernel=kernel.name)


def _verdict_problems(kernel: Any, loc: _Locator, verdict: Any, path: str, oracle: str) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[tuple[int, int, str]] = set()
    for race in verdict.races:
        if race.key in seen:
            continue
        seen.add(race.key)
        problems.append(_race_problems(kernel, loc, race, path))
    for div in verdict.divergences:
        witness = f" ({div.witness.describe(kernel.language)})" if div.witness is not None else ""
        start, end = loc.range(div.label)
        problems.append(Problem(
            "divergence", ERROR,
            f"barrier divergence: this barrier may be reached by only some threads of a block{witness}",
            start, end, kernel=kernel.name))
    for finding in verdict.findings:
        labels = [lab for lab in finding.labels if loc.span(lab) is not None]
        start, end = loc.range(labels[0] if labels else None)
        bid = f" (barrier {finding.barrier_id})" if finding.barrier_id is not None else ""
        related = [Related(path, *loc.range(lab), "involved statement") for lab in labels[1:]]
        problems.append(Problem(finding.kind, ERROR, f"{finding.kind}{bid}: {finding.message}",
                                start, end, related=related, kernel=kernel.name))
    for unknown in verdict.unknowns:
        if unknown.label is not None and loc.span(unknown.label) is not None:
            start, end = loc.range(unknown.label)
        else:
            start, end = loc.index.line_range(unknown.line)
        problems.append(Problem("unknown", WARNING,
                                f"{oracle} oracle could not decide: {unknown.reason}",
                                start, end, kernel=kernel.name))
    return problems


def error_problem(index: LineIndex, path: str, exc: BaseException) -> Problem:
    """A KplError/OracleError (or anything else) as a diagnostic at its line/column."""
    from kpl.errors import KplError

    line = getattr(exc, "line", None)
    col = getattr(exc, "col", None)
    file = getattr(exc, "file", None)
    if isinstance(exc, KplError):
        message = exc.message
        kind = "parse-error"
        if file is not None and not _same_file(file, path):  # an included file is wrong
            message = f"{exc.format()}"
            line, col = None, None
    else:
        message = f"analysis failed: {exc}"
        kind = "oracle-error" if type(exc).__name__ == "OracleError" else "internal-error"
    start, end = index.line_range(line, col)
    return Problem(kind, ERROR, message, start, end)


# --------------------------------------------------------------------------- analyze


def analyze(path: str, text: str, options: Options) -> Analysis:
    """``autosync check`` on an unsaved buffer: every kernel's races, divergent barriers,
    named-barrier findings and unknowns, or the parse error, as editor problems.  Runs in the
    pipeline's guarded worker (big stack), so a deeply nested buffer is analysed or refused
    with one "cannot analyse" problem, never a crashed job."""
    t0 = time.perf_counter()
    try:
        result: Analysis = pipeline.run_guarded(lambda: _analyze(path, text, options), timeout=None, file=path,
                                                text=text)
        return result
    except pipeline.Unsupported as exc:
        start, end = LineIndex(text).line_range(exc.line or None, exc.col or None)
        return Analysis([Problem("unsupported", ERROR, f"AutoSync cannot analyse this file: {exc.message}",
                                 start, end)], seconds=time.perf_counter() - t0)


def _analyze(path: str, text: str, options: Options) -> Analysis:
    from kpl.ast import Barrier, walk_stmts
    from kpl.errors import KplError

    t0 = time.perf_counter()
    index = LineIndex(text)
    try:
        kernels = load(path, text, options)
    except KplError as exc:
        return Analysis([error_problem(index, path, exc)], seconds=time.perf_counter() - t0)
    problems: list[Problem] = []
    result = Analysis(problems, kernels=[k.name for k in kernels], all_verified=True)
    for kernel in kernels:
        if any(isinstance(s, Barrier) for s in walk_stmts(kernel.body)):
            result.has_barriers = True
        try:
            name, orc = pick_oracle(kernel, options, path)
            verdict = orc.check(kernel)
        except Exception as exc:  # OracleError, unsupported constructs, an unknown oracle
            problem = error_problem(index, path, exc)
            problem.message = f"kernel {kernel.name}: {problem.message}"
            problems.append(problem)
            result.all_verified = False
            continue
        if not verdict.verified:
            result.all_verified = False
        found = _verdict_problems(kernel, _Locator(path, index, kernel), verdict, path, name)
        problems.extend(found)
    result.fixable = any(p.fixable for p in problems)
    result.seconds = time.perf_counter() - t0
    return result


# --------------------------------------------------------------------------- fix


def fix_file(path: str, text: str, options: Options) -> QuickFix:
    """``autosync fix`` without the writing, on the buffer ``text``: the CLI's own pipeline
    (:func:`autosync.pipeline.core.fix_kernels`: synthesis, rendering, the end-to-end re-parse and
    re-verification, the nvcc check when nvcc is installed), so the quick-fix's edit is exactly
    the text ``autosync fix`` writes."""
    from kpl.errors import KplError

    t0 = time.perf_counter()
    try:
        out = pipeline.run_guarded(
            lambda: pipeline.fix_kernels(options.kernel_options(path), text=text, oracle=options.oracle_flag,
                                         timeout=options.timeout, solver=options.solver, lc=float(options.lc),
                                         ic=float(options.ic), use_facts=options.use_facts, naive=False,
                                         target=options.target),
            timeout=None, file=path, text=text)
    except KplError as exc:
        return QuickFix("error", None, exc.format(), seconds=time.perf_counter() - t0)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # the pipeline's InternalError/BadInput/Timeout: no patch
        return QuickFix("error", None, str(exc) or type(exc).__name__, seconds=time.perf_counter() - t0)
    barriers = [(f.kernel.name, f.result.placement) for f in out.fixes if f.result.status == "fixed"]
    new_text = out.patched if out.status == "fixed" else (text if out.status == "verified" else None)
    return QuickFix(out.status, new_text, out.reason, barriers, time.perf_counter() - t0)


def fix_text(path: str, text: str, options: Options | None = None) -> str | None:
    """The text ``autosync fix`` writes for ``text`` (``path`` names it for includes and
    messages), or None when it would write nothing because the kernel cannot be fixed.  An
    already verified kernel comes back unchanged."""
    return fix_file(path, text, options or Options()).text


# --------------------------------------------------------------------------- compare


def redundant_barriers(path: str, text: str, options: Options) -> list[Problem]:
    """The developer barriers ``autosync compare`` calls redundant (dropped by the from-scratch
    synthesis of Sec. IV-B AND the kernel still verifies without that one barrier -- see
    :func:`autosync.commands.compare.compare_kernel`), each with the edit deleting it."""
    from autosync.commands.compare import compare_kernel
    from autosync.render.patch import plan_edits
    from kpl.transform import barrier_anchors

    index = LineIndex(text)
    problems: list[Problem] = []
    opts = options.kernel_options(path)
    for kernel in pipeline.load(opts, text):
        if not barrier_anchors(kernel):
            continue
        _, orc = pick_oracle(kernel, options, path)
        comparison = compare_kernel(kernel, orc, solver=options.solver, lc=pipeline.lc_ic(float(options.lc)),
                                    ic=pipeline.lc_ic(float(options.ic)), use_facts=options.use_facts,
                                    parse_options=opts.frontend_kwargs())
        optimal = comparison.synthesized.count if comparison.synthesized is not None else None
        loc = _Locator(path, index, kernel)
        for dropped in comparison.dropped:
            span = dropped.barrier.span
            if not dropped.removable or span is None or span.start < 0 or not _same_file(span.file, path):
                continue  # a barrier from a header or a macro: no edit we can offer
            deletion = plan_edits(kernel, [], remove=[dropped.barrier])
            if len(deletion) != 1:
                continue
            edit = deletion[0]
            start, end = loc.span_range(span)
            detail = (f" (AutoSync's optimal placement has {optimal} barrier(s), the developer's "
                      f"{comparison.developer.count})" if optimal is not None else "")
            problems.append(Problem(
                "redundant-barrier", HINT,
                f"redundant barrier: kernel '{kernel.name}' verifies without it{detail}",
                start, end,
                edit=(index.position(edit.start), index.position(edit.end), edit.replacement),
                kernel=kernel.name))
    return problems


def improve(path: str, text: str, options: Options, want_fix: bool, want_redundant: bool) -> Improvement:
    """Phase two of the server (slower than :func:`analyze`): the quick-fix text and the
    redundant-barrier hints, each guarded so one failing does not hide the other."""
    result = Improvement(fix=None)
    if want_fix:
        try:
            result.fix = fix_file(path, text, options)
        except Exception as exc:
            result.fix = QuickFix("error", None, f"{type(exc).__name__}: {exc}")
            result.errors.append(f"fix failed: {type(exc).__name__}: {exc}")
    if want_redundant:
        try:
            # in the guarded worker, as analyze and fix_file: its stack bounds every recursive walk
            result.redundant = pipeline.run_guarded(lambda: redundant_barriers(path, text, options), timeout=None,
                                                    file=path, text=text)
        except Exception as exc:
            result.errors.append(f"redundant-barrier analysis failed: {type(exc).__name__}: {exc}")
    return result
