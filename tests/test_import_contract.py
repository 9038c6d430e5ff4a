"""Every import arrow inside ``agent`` (and its sibling ``l4synth``) points one way: no
cycles, counting imports inside functions and under TYPE_CHECKING, so a module can be read
and changed from the bottom up. The generator is a sibling package that only the entry
points (the CLI's commands) may import: a detector that read it would be tuned to it."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (ROOT / "agent", ROOT / "l4synth")
# The only agent modules that may import the generator: `l4 synth`, `l4 demo` and `l4 bench`'s commands.
SYNTH_ENTRY_POINTS = ("agent.cli.corpus",)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for package in PACKAGES for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_agent_module_but_the_entry_points_imports_the_generator():
    graph = import_graph()
    assert graph["agent.cli.corpus"] & {"l4synth"}, "the contract below would hold vacuously"
    for module, targets in graph.items():
        if module.startswith("agent.") and module not in SYNTH_ENTRY_POINTS:
            assert not any(t == "l4synth" or t.startswith("l4synth.") for t in targets), module


def test_the_generator_imports_only_the_schema_and_the_demo_the_public_api():
    graph = import_graph()
    for module, targets in graph.items():
        if module.startswith("l4synth"):
            outside = {t for t in targets if t.startswith("agent")}
            allowed = {"agent.schema"} if module != "l4synth.demo" else {"agent.schema", "agent.config", "agent.pools", "agent.pipeline"}
            assert outside <= allowed, (module, outside - allowed)
