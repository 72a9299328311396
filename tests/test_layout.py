"""The house rules of the code base, checked rather than hoped for (CONTRIBUTING.md, "Layout").

WHY: a reader should know from a file's path what it does and what it may touch.  Three rules
make that true and are easy to break without noticing in a review: imports go one way only
(``autosync`` → ``oracle`` → ``kpl``), no module imports itself back through a cycle, and a
module stays small enough to hold in one's head (over ~400 lines it must say in its docstring
why it is one piece; nothing over 600).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"kpl": 0, "oracle": 1, "autosync": 2}
MAX_LINES = 600
EXPLAIN_OVER = 400


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for pkg in LAYERS:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _top_level_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` is imported (not those imported lazily inside a
    function or only for type checking)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in MODULES}


IMPORTS = {name: _top_level_imports(path) - {name} for name, path in MODULES.items()}


def test_imports_go_one_way_only() -> None:
    upward = [(m, d) for m, deps in IMPORTS.items() for d in deps
              if LAYERS[d.split(".")[0]] > LAYERS[m.split(".")[0]]]
    assert not upward, f"imports against autosync → oracle → kpl: {upward}"


def test_no_import_cycle() -> None:
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(mod: str, stack: list[str]) -> None:
        state[mod] = 1
        stack.append(mod)
        for dep in sorted(IMPORTS[mod]):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[mod] = 2

    for mod in sorted(IMPORTS):
        if mod not in state:
            visit(mod, [])
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name: str) -> None:
    path = MODULES[name]
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (limit {MAX_LINES})"
    if lines > EXPLAIN_OVER:
        doc = ast.get_docstring(ast.parse(text)) or ""
        assert re.search(r"one piece|why one module|one module \(|over 400 lines", doc, re.I), (
            f"{path.relative_to(ROOT)} has {lines} lines: its docstring must say why it is one piece")


# --------------------------------------------------------------------------- oracle/


def _every_import(name: str, path: Path) -> set[str]:
    """Every module of the repository that ``path`` imports ANYWHERE: at the top, inside a
    function, and under ``if TYPE_CHECKING:`` too.  Why type-only imports count here: a
    module that names a type of a module above it still has to know that module, and the
    circle that made ``oracle/`` a package tree (sdv's state, loops, statements, memory,
    invariants, ...) ran through exactly such imports -- a check that skips them passed on
    the tangled code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[:len(package) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m in MODULES} - {name}


ORACLE_IMPORTS = {name: _every_import(name, path) for name, path in MODULES.items()
                  if name.split(".")[0] == "oracle"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: one path per strongly connected component of more
    than one module (Tarjan), closed back on its first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp) + [min(comp)])

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_cycle_finder_finds_a_circle_through_a_function_body() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_oracle() -> None:
    """No import circle among the modules of ``oracle/``, counting imports inside functions
    and type-only ones (see :func:`_every_import`)."""
    assert not _cycles(ORACLE_IMPORTS), f"import circles in oracle/: {_cycles(ORACLE_IMPORTS)}"


#: the layers of ``oracle.sdv``, bottom first (its package docstring says what each holds)
SDV_LAYERS = [
    ("state and encoding", {"encode", "state"}),
    ("expressions", {"expr"}),
    ("memory", {"memfacts", "memory"}),
    ("statements", {"stmt"}),
    ("loops and invariants", {"slice", "loopinfo", "invariants", "loops"}),
    ("the verifier", {"executor", "facts", "pairs", "verifier"}),
]


def test_sdv_layers_go_one_way() -> None:
    """Inside ``oracle.sdv`` a module imports only its own layer or lower ones; every module
    has a layer (a new one must be placed)."""
    level = {f"oracle.sdv.{m}": i for i, (_, mods) in enumerate(SDV_LAYERS) for m in mods}
    sdv = {m for m in ORACLE_IMPORTS if m.startswith("oracle.sdv.")}
    assert sdv == set(level), f"oracle.sdv modules and SDV_LAYERS differ: {sorted(sdv ^ set(level))}"
    upward = [(m, d) for m in sorted(sdv) for d in sorted(ORACLE_IMPORTS[m])
              if d in level and level[d] > level[m]]
    assert not upward, f"oracle.sdv imports against its layer order: {upward}"


def test_oracle_packages_import_only_base_and_themselves() -> None:
    """The oracle packages (``sdv``, ``dynamic``, ``named``, any new one) stand side by side
    behind ``oracle.base`` and the registry: none imports another, and ``base``/``registry``
    import none of them."""
    families = {m.split(".")[1] for m in ORACLE_IMPORTS if m.count(".") >= 2}
    assert {"sdv", "dynamic", "named"} <= families
    crossing = []
    for m, deps in sorted(ORACLE_IMPORTS.items()):
        own = m.split(".")[1] if m.count(".") else ""
        for d in sorted(deps):
            if d.startswith("oracle.") and d.split(".")[1] in families and d.split(".")[1] != own:
                crossing.append((m, d))
    assert not crossing, f"imports across the oracle packages: {crossing}"
