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


# --------------------------------------------------------------------------- every import


def _all_imports(name: str, path: Path) -> set[str]:
    """Every module ``path`` imports anywhere: at the top, inside functions, under
    ``if __name__ == "__main__"``, and under ``if TYPE_CHECKING:`` too (never run, but a
    dependency all the same: the reader and mypy follow it)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def resolve(module: str) -> str | None:
        while module and module not in MODULES:
            module = module.rpartition(".")[0]
        return module or None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(m for alias in node.names if (m := resolve(alias.name)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in MODULES else resolve(base)
                if target:
                    found.add(target)
    return found - {name}


ALL_IMPORTS = {name: _all_imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(mod: str) -> None:
        index[mod] = low[mod] = len(index)
        stack.append(mod)
        on_stack.add(mod)
        for dep in sorted(graph[mod]):
            if dep not in index:
                connect(dep)
                low[mod] = min(low[mod], low[dep])
            elif dep in on_stack:
                low[mod] = min(low[mod], index[dep])
        if low[mod] == index[mod]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == mod:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for mod in sorted(graph):
        if mod not in index:
            connect(mod)
    return sorted(found)


def test_no_import_cycles() -> None:
    """No circle at all, counting every import: a lazy or type-only import hides a circle from
    start-up but not from the reader, who can no longer say which module is under which (the
    top-level rule alone is :func:`test_no_import_cycle`)."""
    cycles = _cycles(ALL_IMPORTS)
    assert not cycles, "import cycles (every import counted):\n" + "\n".join(
        " ↔ ".join(c) for c in cycles)


#: autosync's packages and the ones each may import (besides itself, ``oracle`` and ``kpl``):
#: the algorithm and the rendering at the bottom, the pipeline on both, the reports on the
#: pipeline's outcome, the doors on top (CONTRIBUTING.md, "Layout"; each package's docstring)
AUTOSYNC_PACKAGES: dict[str, set[str]] = {
    "algorithm": set(),
    "render": set(),
    "pipeline": {"algorithm", "render"},
    "report": {"algorithm", "render", "pipeline"},
    "commands": {"algorithm", "render", "pipeline", "report"},
    "lsp": {"algorithm", "render", "pipeline", "report", "commands"},
}


def _package(mod: str) -> str | None:
    """``algorithm`` for ``autosync.algorithm.cost`` (and for the package itself); None outside
    autosync's packages (``autosync``, ``autosync.__main__``, ``oracle.*``, ``kpl.*``)."""
    parts = mod.split(".")
    return parts[1] if parts[0] == "autosync" and len(parts) > 1 and parts[1] != "__main__" else None


def test_algorithm_imports_no_machinery() -> None:
    """The algorithm (cost, constraints, MaxSAT, Algorithm 1, the searches beyond it) takes
    kernels and verdicts and hands back data: it imports no pipeline, command, rendering,
    report or language-server module, so it reads and tests on its own."""
    algorithm = [m for m in ALL_IMPORTS if _package(m) == "algorithm"]
    assert algorithm, "autosync/algorithm/ has no modules"
    wrong = sorted((m, d) for m in algorithm for d in ALL_IMPORTS[m]
                   if d.split(".")[0] == "autosync" and _package(d) != "algorithm")
    assert not wrong, f"the algorithm imports the machinery around it: {wrong}"


def test_autosync_packages_import_downward() -> None:
    """Every autosync module is in one of the packages, and imports only its own package and
    those listed below it in :data:`AUTOSYNC_PACKAGES`."""
    loose = sorted(m for m in ALL_IMPORTS if (pkg := _package(m)) is not None and pkg not in AUTOSYNC_PACKAGES)
    assert not loose, f"autosync modules outside the packages: {loose}"
    wrong = sorted((m, d) for m in ALL_IMPORTS if (pkg := _package(m)) is not None for d in ALL_IMPORTS[m]
                   if (dep := _package(d)) is not None and dep != pkg and dep not in AUTOSYNC_PACKAGES[pkg])
    assert not wrong, f"imports against the autosync layers: {wrong}"


ORACLE_IMPORTS = {name: deps for name, deps in ALL_IMPORTS.items() if name.split(".")[0] == "oracle"}


def test_cycle_finder_finds_a_circle_through_a_function_body() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


#: the layers of ``oracle.sdv``, bottom first (its package docstring says what each holds)
SDV_LAYERS = [
    ("state and encoding", {"encode", "state"}),
    ("expressions", {"defined", "expr"}),
    ("memory", {"memfacts", "memory"}),
    ("statements", {"stmt"}),
    ("loops and invariants", {"slice", "scaling", "strides", "candidate", "loopinfo", "invariants",
                              "loops"}),
    ("the verifier", {"executor", "facts", "pairs", "shapes", "verifier", "witness"}),
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
