"""The layout's limits (docs/architecture.md): no module over 600 lines, no Python class
over 400, no import cycle among the project's modules, and the packages import one way
(gin imports neither client nor relay; relay imports neither gin nor client)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gin", "client", "relay")
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400


def _python_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The project's modules that ``name`` imports, wherever in the file (a lazy import
    inside a function is still a dependency)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            # `from gin.protocol import cosign` imports the module gin.protocol.cosign
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def test_no_module_is_over_600_lines() -> None:
    sources = list(_python_modules().values()) + [
        p for p in (ROOT / "client" / "web" / "src").rglob("*.ts")]
    long = {str(p.relative_to(ROOT)): n for p in sources
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_no_python_class_is_over_400_lines() -> None:
    long = {}
    for name, path in _python_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > MAX_CLASS_LINES:
                    long[f"{name}.{node.name}"] = size
    assert long == {}


def test_no_import_cycle_and_the_packages_import_one_way() -> None:
    modules = _python_modules()
    graph = {name: set(_imports(name, path, modules)) for name, path in modules.items()}
    wrong_way = sorted(
        f"{name} imports {target}" for name, targets in graph.items() for target in targets
        if (name.startswith("gin") and target.split(".")[0] in ("client", "relay"))
        or (name.startswith("relay") and target.split(".")[0] in ("gin", "client")))
    assert wrong_way == []
    # A package's __init__ re-exporting its own modules is not a cycle of ideas.
    def edges(name: str) -> set[str]:
        return {t for t in graph[name] if not (modules[t].name == "__init__.py"
                                               and name.startswith(t + "."))}
    cycles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(edges(name)):
            if state.get(target) == 1:
                cycles.append(" → ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []
