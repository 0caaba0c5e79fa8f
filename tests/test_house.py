"""The layout's limits (docs/architecture.md): no module over 600 lines, no Python class
over 400, no import cycle among the project's modules, the packages import one way (gin
imports neither client nor relay; relay imports neither gin nor client), the layers inside
gin and client/web/src too, client imports only the listed parts of relay, and no module
imports another's private names."""

from __future__ import annotations

import ast
import re
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
            # `from gin.protocol.records import cosign` imports the module .records.cosign
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


#: Inside gin, each layer imports only those before it (docs/architecture.md).
GIN_LAYERS = ("gin.engine", "gin.players", "gin.protocol", "gin.conformance")
#: In TypeScript, client/web/src's folders in the same order, the page last.
TS_LAYERS = ("engine", "players", "protocol", "online", "board")
#: What client/ may import of relay/ (docs/architecture.md names the same list): the wire
#: constants and room ids it is held to, and the relay it embeds (`gin relay`, `gin web`,
#: `gin host`'s own relay).
CLIENT_FROM_RELAY = ("relay.cli", "relay.config", "relay.logs", "relay.roomid", "relay.server",
                     "relay.static", "relay.wire")


def _layer(name: str, layers: tuple[str, ...]) -> int | None:
    return next((i for i, layer in enumerate(layers)
                 if name == layer or name.startswith(layer + ".")), None)


def test_inside_gin_the_layers_import_one_way() -> None:
    modules = _python_modules()
    wrong = sorted(
        f"{name} imports {target}" for name, path in modules.items()
        for target in _imports(name, path, modules)
        if (mine := _layer(name, GIN_LAYERS)) is not None
        and (theirs := _layer(target, GIN_LAYERS)) is not None and theirs > mine)
    assert wrong == []


def _ts_imports(path: Path) -> Iterator[Path]:
    text = path.read_text(encoding="utf-8")
    for spec in re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""", text):
        yield (path.parent / spec).resolve()


def test_in_typescript_the_layers_import_one_way() -> None:
    src = (ROOT / "client" / "web" / "src").resolve()
    wrong = []
    for path in src.rglob("*.ts"):
        mine = _layer(path.relative_to(src).parts[0], TS_LAYERS)
        for target in _ts_imports(path):
            theirs = _layer(target.relative_to(src).parts[0], TS_LAYERS)
            if mine is not None and theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(src)} imports {target.relative_to(src)}")
    assert sorted(wrong) == []


def test_client_imports_of_relay_are_the_listed_ones_and_the_map_names_them() -> None:
    modules = _python_modules()
    used = {target for name, path in modules.items() if name.startswith("client")
            for target in _imports(name, path, modules) if target.startswith("relay")}
    assert used <= set(CLIENT_FROM_RELAY), sorted(used - set(CLIENT_FROM_RELAY))
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for module in CLIENT_FROM_RELAY:
        assert f"`{module}`" in architecture, module


def test_no_module_imports_another_modules_private_names() -> None:
    modules = _python_modules()
    private = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
                private += [f"{name}: {node.module}.{a.name}" for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert private == []


#: Inside the protocol, in both twins: the deck mathematics and what travels, then what is
#: kept and audited, then the session.
PROTOCOL_LAYERS = {"deal": 0, "wire": 0, "records": 1, "session": 2}


def test_inside_the_protocol_the_concepts_import_one_way() -> None:
    def concept(parts: tuple[str, ...]) -> int | None:
        return PROTOCOL_LAYERS.get(parts[1]) if len(parts) > 2 and parts[0] == "protocol" else None

    modules = _python_modules()
    wrong = [f"{name} imports {target}" for name, path in modules.items()
             for target in _imports(name, path, modules)
             if (mine := concept(tuple(name.split(".")[1:]))) is not None
             and (theirs := concept(tuple(target.split(".")[1:]))) is not None and theirs > mine]
    src = (ROOT / "client" / "web" / "src").resolve()
    for path in (src / "protocol").rglob("*.ts"):
        mine = concept(path.relative_to(src).parts)
        for target in _ts_imports(path):
            theirs = concept(target.relative_to(src).parts)
            if mine is not None and theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(src)} imports {target.relative_to(src)}")
    assert sorted(wrong) == []


def test_the_map_lists_every_module() -> None:
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    paths = [p.relative_to(ROOT) for p in _python_modules().values()]
    paths += [p.relative_to(ROOT) for p in (ROOT / "client" / "web" / "src").rglob("*.ts")]
    web = Path("client/web")
    missing = sorted(str(p) for p in paths if f"`{p}`" not in architecture and not (
        p.is_relative_to(web) and f"`{p.relative_to(web)}`" in architecture))
    assert missing == []
