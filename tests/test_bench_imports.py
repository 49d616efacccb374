"""bench/, harness/ and experiments/ import without a circle, and every module of them imports.

The check is on the source: every ``import`` and ``from ... import`` of one of
these packages, at any depth (a function-level import closes a circle as
surely as one at the top: ``bench.scale`` and ``bench.scale_hybrid`` once
imported helpers from each other inside functions), is an edge between two
modules; the graph must have no cycle. Then one fresh interpreter imports every
module, so a module that no longer imports (a renamed import left behind) fails here.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGES = ("bench", "harness", "experiments")


def modules(repo: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((repo / package).rglob("*.py")):
            parts = path.relative_to(repo).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def edges(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``name`` (at ``path``) imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)  # ``from bench import scale``
    return {m for m in out if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), as sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_check_finds_a_circle_through_function_level_imports(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "a.py").write_text("def f():\n    from bench.b import g\n")
    (tmp_path / "bench" / "b.py").write_text("from bench import a\n")
    (tmp_path / "bench" / "c.py").write_text("import bench.a\n")
    found = modules(tmp_path)
    graph = {name: edges(name, path, set(found)) for name, path in found.items()}
    assert graph["bench.c"] == {"bench.a"} and cycles(graph) == [["bench.a", "bench.b"]]


def test_bench_harness_and_experiments_have_no_import_circle(repo):
    found = modules(Path(repo))
    graph = {name: edges(name, path, set(found)) for name, path in found.items()}
    assert cycles(graph) == []


def test_every_bench_harness_and_experiments_module_imports(repo):
    names = sorted(name for name in modules(Path(repo)) if not name.endswith("__main__"))
    code = ("import importlib, json, sys\nfailed = {}\nfor name in json.loads(sys.argv[1]):\n"
            "    try:\n        importlib.import_module(name)\n"
            "    except Exception as e:\n        failed[name] = f'{type(e).__name__}: {e}'\n"
            "print(json.dumps(failed))\n")
    done = subprocess.run([sys.executable, "-c", code, json.dumps(names)], cwd=repo, capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {}
