"""No import circles in the Python package: the module-level imports of every module under
python/wattlab (read with ast, nothing imported) form a graph without cycles. Imports inside
functions (deferred on purpose, e.g. to keep start-up fast) and under ``if TYPE_CHECKING:`` do
not count: they run after both modules exist. Issue 28: the protocol modules of the live
testbed imported the dispatcher's private names back (live/runner.py ⇄ live/wwp.py, psna.py,
tunnel.py); the session machinery now lives in live/session.py, which imports none of them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "python"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name); the native
    extension (``_core``) counts as a module that imports nothing of ours."""
    out = {}
    for so in (ROOT / "wattlab").glob("*.so"):
        out["wattlab." + so.name.split(".")[0]] = so
    out.setdefault("wattlab._core", ROOT / "wattlab" / "_core.abi3.so")  # before `make setup` built it
    for path in sorted((ROOT / "wattlab").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _top_level_imports(tree: ast.Module, deferred: bool = False):
    """The import statements that run when the module is imported (module level, including
    inside module-level ``try`` and ``if`` blocks, except ``if TYPE_CHECKING:``); with
    ``deferred``, every import statement, those inside functions too."""
    if deferred:
        yield from (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))
        return
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            test = ast.unparse(node.test)
            if "TYPE_CHECKING" not in test:
                stack.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            stack.extend(node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body])


def import_graph(modules: dict[str, Path], deferred: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level (with ``deferred``, anywhere)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        if path.suffix == ".so":
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _top_level_imports(ast.parse(path.read_text(), filename=str(path)), deferred):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                # `from pkg import mod` imports the module pkg.mod; `from mod import name`, mod.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules (first = last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (c := visit(n)):
                return c
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (c := visit(m)):
            return c
    return None


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_reads_module_level_imports_only(tmp_path):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from p import b\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p import c\n")
    (pkg / "b.py").write_text("def f():\n    from p import a\n")
    (pkg / "c.py").write_text("from .a import x\n")
    mods = {"p": pkg / "__init__.py", "p.a": pkg / "a.py", "p.b": pkg / "b.py", "p.c": pkg / "c.py"}
    assert import_graph(mods) == {"p": set(), "p.a": {"p.b"}, "p.b": set(), "p.c": {"p.a"}}


def test_the_live_testbed_has_no_import_circle_even_through_deferred_imports():
    # The protocol modules once imported the dispatcher's private names back inside their
    # functions (runner -> wwp -> runner): no circle even counting imports in functions.
    graph = import_graph(_modules(), deferred=True)
    live = {m: {n for n in deps if n.startswith("wattlab.live.")} for m, deps in graph.items() if m.startswith("wattlab.live.")}
    assert find_cycle(live) is None, "import cycle: " + " -> ".join(find_cycle(live) or [])
    for mod in ("wwp", "psna", "tunnel", "session"):
        assert "wattlab.live.runner" not in graph[f"wattlab.live.{mod}"], mod
    assert "wattlab.live.session" in graph["wattlab.live.wwp"]


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph(_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
