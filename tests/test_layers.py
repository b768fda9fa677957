"""The tree tells the architecture (issue 20 §2): layers, one address per name.

docs/architecture.md draws the package as layers, each importing only from the ones above
it. `LAYERS` is that drawing as data, and these tests walk the source (as test_errors.py
does) so the drawing, the tree and the imports say the same thing:

- no module imports from a layer below its own: not at its top, not inside a function and
  not under `if TYPE_CHECKING:` (issue 30: counting those, 67 modules ran in one circle, the
  vocabulary reaching the views and errors.py the loop), but for the few of `ALLOWED`, each
  with its reason; and no circle of imports crosses a layer (`circles`: Tarjan's strongly
  connected components of the graph of every import);
- every module of the package sits in exactly one layer;
- inside the package each name is imported from the module that defines it, never through
  a module that only passes it on (`messages.Transcript` was reached 36 ways);
- only the façades re-export: the package `__init__`s and `messages` (lessons import
  `toolcall_lab.messages`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import parsed

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "toolcall_lab"

#: docs/architecture.md's drawing, top to bottom: module paths below `toolcall_lab.` (a folder
#: covers what is inside it, but for a folder inside it that is named too: the most specific
#: name wins, so `views.widgets` is its own layer). A module may import only from its own layer
#: or above.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("vocabulary", ("_checked", "_display", "_files", "_json", "_jsonschema", "_redact", "_summable", "_text",
                    "_version", "blocks", "errors", "messages", "stream", "transcript", "turn", "usage")),
    ("tools, tokens, models", ("mcp_tools", "models", "output_format", "schema", "server_tools", "tokens",
                               "tool", "tool_choice", "tools")),
    ("the wire", ("recorded", "wire")),
    ("providers", ("providers",)),
    ("the loop", ("approval", "cancel", "compaction", "context_budget", "events", "examples", "ledger",
                  "loop", "mcp_loop", "pending", "result_cap", "tool_order")),
    ("seeing it", ("views",)),
    ("what the model reads", ("template",)),
    ("the double", ("double", "parts_api")),
    ("teaching", ("checks", "contract", "evals", "misbehaving", "selfcheck")),
    ("tapes", ("tape",)),
    ("the widgets", ("views.widgets",)),
    ("the teacher", ("teacher",)),
    ("the façade", ("__init__", "__main__")),
]

#: the modules that may re-export names defined elsewhere (see the module docstring)
FACADES = {"toolcall_lab.messages"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
TREES = {name: parsed(path) for name, path in MODULES.items()}


def is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def target(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom in `module` reads from."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: str, *, top_only: bool) -> list[tuple[str, str, int]]:
    """(imported module, name or "", line) of each import of the package in `module`.

    `top_only`: leave out the lazy ones, inside a function or under `if TYPE_CHECKING:`.
    """
    found: list[tuple[str, str, int]] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                found.extend((target(module, node), alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend((alias.name, "", node.lineno) for alias in node.names)
            elif isinstance(node, ast.If) and top_only and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and top_only:
                continue
            else:
                visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])

    visit(TREES[module].body)
    return [(name, what, line) for name, what, line in found if name.split(".")[0] == "toolcall_lab"]


def defined(module: str) -> set[str]:
    """The names `module` binds itself at its top (an import is not a definition): its
    functions, classes and assignments, also inside its top-level `if`s and `try`s."""
    names: set[str] = set()
    nodes = list(TREES[module].body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, (ast.If, ast.Try)):
            nodes += node.body + node.orelse + getattr(node, "finalbody", []) + [
                stmt for handler in getattr(node, "handlers", []) for stmt in handler.body]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for each in targets for n in ast.walk(each) if isinstance(n, ast.Name)}
    return names


def layer_of(module: str) -> int:
    below = module.removeprefix("toolcall_lab").lstrip(".") or "__init__"
    found = sorted((len(head), index) for index, (_, heads) in enumerate(LAYERS)
                   for head in heads if below == head or below.startswith(head + "."))
    assert found, f"{module} is in no layer of LAYERS; add it to one"
    assert [n for n, _ in found].count(found[-1][0]) == 1, f"{module} is named in two layers of LAYERS"
    return found[-1][1]


#: The upward imports that stay, (module, imported module) -> why. Each is lazy (inside a
#: function, or a type only) and in no circle (`test_no_circle_of_imports_crosses_a_layer`).
ALLOWED: dict[tuple[str, str], str] = {
    ("toolcall_lab.double.api_double", "toolcall_lab.tape.format"):
        "the double answers from a tape it is given (ApiDouble(tape=...)), data it reads only then; "
        "tape/format.py imports nothing of the double, whose recorder and lessons' cell sit below it",
    ("toolcall_lab.double.playback", "toolcall_lab.tape.format"): "the Tape type the playback reads",
}


def every_import(module: str) -> list[tuple[str, int, str]]:
    """(imported module, line, "top" / "function" / "type_checking") of each import of the
    package in `module`: the submodule, for `from package import submodule`."""
    found: list[tuple[str, int, str]] = []

    def visit(nodes: list[ast.stmt], kind: str) -> None:
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                source = target(module, node)
                found.extend((f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source,
                              node.lineno, kind) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend((alias.name, node.lineno, kind) for alias in node.names)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.body, "type_checking" if kind == "top" else kind)
                visit(node.orelse, kind)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, "function")
            else:
                visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)], kind)

    visit(TREES[module].body, "top")
    return [(name, line, kind) for name, line, kind in found if name.split(".")[0] == "toolcall_lab"]


def upward_imports(module: str) -> list[str]:
    """What `module` imports from a layer below its own (the drawing's 'below'), lazily too."""
    mine = layer_of(module)
    return [f"{module}:{line} imports {name} ({LAYERS[layer_of(name)][0]}), below {LAYERS[mine][0]}"
            f"{'' if kind == 'top' else f' ({kind})'}"
            for name, line, kind in every_import(module)
            if name in MODULES and layer_of(name) > mine and (module, name) not in ALLOWED]


def circles() -> list[list[str]]:
    """The strongly connected components of the import graph (every import, lazy ones too) with
    more than one module, largest first: Tarjan's algorithm, one pass over the graph."""
    graph = {module: sorted({name for name, _, _ in every_import(module) if name in MODULES} - {module})
             for module in MODULES}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for name in graph[module]:
            if name not in order:
                visit(name)
                low[module] = min(low[module], low[name])
            elif name in stack:
                low[module] = min(low[module], order[name])
        if low[module] == order[module]:  # the root of a component: what is above it on the stack
            component = stack[stack.index(module):]
            del stack[stack.index(module):]
            found.append(sorted(component))

    for module in graph:
        if module not in order:
            visit(module)
    return sorted((c for c in found if len(c) > 1), key=len, reverse=True)


def test_every_module_sits_in_one_layer():
    for module in MODULES:
        layer_of(module)


def test_no_import_runs_up_the_layers():
    assert [found for module in MODULES for found in upward_imports(module)] == []


def test_the_allowed_upward_imports_are_few_and_still_there():
    lazy = {(module, name) for module in MODULES for name, _, kind in every_import(module)
            if kind != "top" and name in MODULES and layer_of(name) > layer_of(module)}
    assert len(ALLOWED) <= 2 and set(ALLOWED) <= lazy, "drop an entry that no longer imports up"


def test_no_circle_of_imports_crosses_a_layer():
    """Issue 30 measured 67 modules in one circle (vocabulary -> views -> wire -> vocabulary);
    what is left are small circles inside one layer (the double's server and its transport)."""
    found = circles()
    assert [c for c in found if len({layer_of(m) for m in c}) > 1] == []
    assert len(found[0]) <= 3, found[0]


def test_the_layer_test_sees_a_lazy_upward_import():
    """The check itself: inside a function or under TYPE_CHECKING, an import up is caught too."""
    TREES["toolcall_lab.errors"] = ast.parse("if TYPE_CHECKING:\n    from .loop import Run\n"
                                             "def show(x):\n    from .views.display.html import run_html\n")
    try:
        assert upward_imports("toolcall_lab.errors") == [
            "toolcall_lab.errors:2 imports toolcall_lab.loop (the loop), below vocabulary (type_checking)",
            "toolcall_lab.errors:4 imports toolcall_lab.views.display.html (seeing it), below vocabulary "
            "(function)"]
    finally:
        TREES["toolcall_lab.errors"] = ast.parse(MODULES["toolcall_lab.errors"].read_text())


def test_the_layer_test_sees_an_upward_import(tmp_path):
    """The check itself: a vocabulary module importing the loop at its top is caught."""
    TREES["toolcall_lab.blocks"] = ast.parse("from .loop import run_agent\n")
    try:
        assert upward_imports("toolcall_lab.blocks") == [
            "toolcall_lab.blocks:1 imports toolcall_lab.loop (the loop), below vocabulary"]
    finally:
        TREES["toolcall_lab.blocks"] = ast.parse(MODULES["toolcall_lab.blocks"].read_text())


def where_defined(module: str, name: str, seen: int = 0) -> str:
    """The module that defines `name` as importable from `module`, following re-exports."""
    if name in defined(module) or f"{module}.{name}" in MODULES or seen > 10:
        return module
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name and target(module, node) in MODULES:
                    return where_defined(target(module, node), alias.name, seen + 1)
    return module


def test_each_name_is_imported_from_the_module_that_defines_it():
    through = [f"{module}:{line} imports {name} from {source}, which takes it from "
               f"{where_defined(source, name)}"
               for module in MODULES for source, name, line in imports(module, top_only=False)
               if name and source in MODULES and where_defined(source, name) != source]
    assert through == []


def test_only_the_facades_re_export():
    passed_on = {}
    for module, tree in TREES.items():
        if is_package(module) or module in FACADES:
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                names = ast.literal_eval(node.value)
                passed_on[module] = [name for name in names if name not in defined(module)]
    assert {module: names for module, names in passed_on.items() if names} == {}


def drawing() -> str:
    text = (SRC.parent / "docs" / "architecture.md").read_text()
    return text.split("```", 2)[1]


def test_the_drawing_names_every_module_and_folder_at_the_root():
    import re

    named = set(re.findall(r"[\w/.<>]+", drawing()))
    at_root = sorted(path.name for path in PACKAGE.glob("*.py")) + sorted(
        f"{path.name}/" for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists())
    missing = [name for name in at_root
               if name not in named and not any(word.startswith(name) for word in named)]
    assert missing == []


def test_every_path_the_drawing_names_exists():
    import re

    paths = {word.rstrip(".,;:)") for word in re.findall(r"[\w/<>.]+/[\w.]+\.py|[\w/]+/\w+/", drawing())
             if "<" not in word}
    gone = [path for path in paths if not (PACKAGE / path).exists() and not (SRC.parent / path).exists()]
    assert sorted(gone) == []


def test_the_drawing_has_the_layers_in_the_order_of_LAYERS():
    text = drawing()
    heads = [text.find(f"  {name.split(',')[0]}") for name, _ in LAYERS]
    assert -1 not in heads and heads == sorted(heads), [name for name, _ in LAYERS]
