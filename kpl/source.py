"""The front end's parse result: what the text-level stages hand to the KPL lowering.

:func:`kpl.cuda.parse_cuda` produces one :class:`ParsedSource`; :mod:`kpl.frontend` consumes
it.  It lives in its own module so that neither stage imports the other's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from kpl.header import KernelHeader
from kpl.macros import MacroDef
from kpl.spans import line_map


@dataclass
class FunctionInfo:
    """One function of the source (kernel, device function or host function)."""

    name: str
    display_name: str
    base_name: str
    kind: str
    launch_bounds: tuple[int, ...] | None
    has_body: bool
    file: str
    line: int
    col: int
    defaults: dict[int, str] = field(default_factory=dict)  # parameter number -> default text


@dataclass
class ParsedSource:
    """A parsed ``.cu`` file: pycparser AST of the lowered text plus the side tables that the
    lowering to C99 had to take out of the text (memory spaces, kernels, textures)."""

    path: str
    text: str
    header: KernelHeader
    ast: c_ast.FileAST
    lowered: str
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    var_spaces: dict[tuple[str | None, str], str] = field(default_factory=dict)
    extern_shared: set[tuple[str | None, str]] = field(default_factory=set)
    textures: dict[str, tuple[str, int]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    #: C++ struct -> (base structs, alignment or 0), see kpl.lower_cuda.Lowered.structs
    structs: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)
    macros: dict[str, MacroDef] = field(default_factory=dict)  # the preprocessor's, by name
    _lowered_map: dict[tuple[str, int], str] | None = field(default=None, repr=False, compare=False)
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def original_line(self, file: str, line: int) -> str:
        """Line ``line`` (1-based) of the original ``file``, without its newline; '' if absent."""
        lines = self._lines.get(file)
        if lines is None:  # split once per file: every statement's span asks (20,000 lines)
            text = self.files.get(file)
            if text is None:
                return ""
            lines = self._lines[file] = text.splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def lowered_line(self, file: str, line: int) -> str:
        """The physical line pycparser saw for original ``(file, line)``; '' if absent.

        When a line was emitted several times (a template definition is blanked where it
        stood and re-emitted per instantiation), the first non-blank copy wins.
        """
        if self._lowered_map is None:
            mapping: dict[tuple[str, int], str] = {}
            phys = self.lowered.split("\n")
            for i, loc in enumerate(line_map(self.lowered)):
                if loc is not None and (loc not in mapping or (not mapping[loc].strip() and phys[i].strip())):
                    mapping[loc] = phys[i]
            self._lowered_map = mapping
        return self._lowered_map.get((file, line), "")
