"""Rewrite the package's imports to what tests/test_layers.py asks: `python tests/fix_imports.py`.

For a branch written before issue 20 grouped the package (merge it, take its side of each
import block, then run this and `ruff check --fix src`, which sorts what this writes):

- an import of an old path (`_old_paths.MOVED`: `..report`, `..widgets._common`, ...) is
  written to the new one, relative as before;
- a module that git carried into a moved folder (a new `widgets/_x.py` lands in
  `views/widgets/`) has its relative imports read from where it was written, then re-aimed;
- each imported name is taken from the module that defines it (`from ..transcript import
  Transcript`, not through `messages`), one `from` line per defining module.

It prints each file it changed; a file it cannot parse is left alone and named.

`python tests/fix_imports.py --imports-conflicts` first resolves each merge conflict whose
two sides are only import lines (`<<<<<<<` ... `>>>>>>>`), keeping both sides' lines, so no
import either branch needs is lost; ruff then merges them and drops what is unused
(`ruff check --fix --select I,F401 src`). Any other conflict is left for a person.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def old_paths():  # type: ignore[no-untyped-def]
    """`_old_paths`, read from its file: the package itself may not import mid-merge."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_old_paths", SRC / "toolcall_lab" / "_old_paths.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def top_names(tree: ast.Module) -> set[str]:
    """The names a module binds itself at its top (an import is not a definition): its
    functions, classes and assignments, also inside its top-level `if`s and `try`s."""
    names: set[str] = set()
    nodes = list(tree.body)
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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def old_name(module: str) -> str:
    """Where `module` lived before `MOVED` (itself if it never moved)."""
    for old, new in old_paths().MOVED.items():
        if module == f"toolcall_lab.{new}" or module.startswith(f"toolcall_lab.{new}."):
            return f"toolcall_lab.{old}" + module[len(f"toolcall_lab.{new}"):]
    return module


def package_of(module: str, path: Path) -> list[str]:
    return module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]


def resolve(base: list[str], node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def relative(target: str, package: list[str]) -> str:
    parts, common = target.split("."), 0
    while common < min(len(parts), len(package)) and parts[common] == package[common]:
        common += 1
    return "." * (len(package) - common + 1) + ".".join(parts[common:])


class Package:
    """The package's modules, parsed, and where each name is defined."""

    def __init__(self) -> None:
        self.paths = {module_name(path): path for path in sorted((SRC / "toolcall_lab").rglob("*.py"))}
        self.trees: dict[str, ast.Module] = {}
        for module, path in self.paths.items():
            try:
                self.trees[module] = ast.parse(path.read_text())
            except SyntaxError as exc:
                print(f"left alone (cannot parse): {path.relative_to(ROOT)}: {exc}")

    def defined(self, module: str) -> set[str]:
        return top_names(self.trees[module]) if module in self.trees else set()  # unparsed: nothing known

    def where(self, module: str, name: str, seen: int = 0) -> str:
        """The module that defines `name`, as importable from `module`."""
        if module not in self.trees or name in self.defined(module) or f"{module}.{name}" in self.paths \
                or seen > 10:
            return module
        for node in ast.walk(self.trees[module]):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    found = resolve(package_of(module, self.paths[module]), node)
                    if (alias.asname or alias.name) == name and found in self.paths:
                        return self.where(found, alias.name, seen + 1)
        homes = [other for other in self.trees if name in self.defined(other)]
        return homes[0] if len(homes) == 1 else module  # it moved away: its one home, if it has one

    def offers(self, source: str, node: ast.ImportFrom) -> bool:
        """Whether `source` is a module that has every name `node` imports from it."""
        return source in self.paths and all(
            alias.name in self.defined(self.where(source, alias.name))
            or f"{source}.{alias.name}" in self.paths for alias in node.names)

    def rewritten(self, module: str, node: ast.ImportFrom) -> str | None:
        """The `from` lines `node` should be, or None when it is right as it is."""
        new_path = old_paths().new_path
        path = self.paths[module]
        here = package_of(module, path)
        written = source = resolve(here, node)
        if node.level and not self.offers(source, node):
            source = resolve(package_of(old_name(module), path), node)  # carried into a moved folder
        source = new_path(source) or source
        if source not in self.paths:
            return None
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            shown = alias.asname or alias.name
            groups.setdefault(self.where(source, alias.name), []).append(
                alias.name if shown == alias.name else f"{alias.name} as {shown}")
        if list(groups) == [written]:
            return None  # already from where each name is defined
        return "".join(f"from {relative(home, here) if node.level else home} import {', '.join(names)}\n"
                       for home, names in sorted(groups.items()))

    def fix(self, module: str) -> bool:
        lines = self.paths[module].read_text().splitlines(keepends=True)
        edits = [(node, line) for node in ast.walk(self.trees[module]) if isinstance(node, ast.ImportFrom)
                 for line in [self.rewritten(module, node)] if line is not None]
        for node, line in sorted(edits, key=lambda edit: -edit[0].lineno):
            indent = lines[node.lineno - 1][: node.col_offset]
            lines[node.lineno - 1: node.end_lineno] = [indent + each for each in line.splitlines(True)]
        if edits:
            self.paths[module].write_text("".join(lines))
        return bool(edits)


def is_import_line(line: str) -> bool:
    """Whether `line` belongs to an import statement (its first line, a name, or its closing)."""
    stripped = line.strip()
    return (not stripped or stripped.startswith(("from ", "import ", ")", "#"))
            or stripped.rstrip(",").replace(" as ", " ").replace(" ", "").isidentifier())


def union_import_conflicts(path: Path) -> bool:
    """Resolve the conflicts in `path` whose sides are only imports: both sides, ours first."""
    lines, out, changed = path.read_text().splitlines(keepends=True), [], False
    index = 0
    while index < len(lines):
        if not lines[index].startswith("<<<<<<< "):
            out.append(lines[index])
            index += 1
            continue
        middle = next(i for i in range(index, len(lines)) if lines[i].startswith("======="))
        end = next(i for i in range(middle, len(lines)) if lines[i].startswith(">>>>>>> "))
        ours, theirs = lines[index + 1: middle], lines[middle + 1: end]
        if all(is_import_line(line) for line in ours + theirs):
            out += ours + theirs
            changed = True
        else:
            out += lines[index: end + 1]
        index = end + 1
    if changed:
        path.write_text("".join(out))
    return changed


def main() -> int:
    if "--imports-conflicts" in sys.argv[1:]:
        for path in sorted((SRC / "toolcall_lab").rglob("*.py")):
            if "<<<<<<< " in path.read_text() and union_import_conflicts(path):
                print(f"import conflicts resolved in {path.relative_to(ROOT)}")
    package = Package()
    for module in package.trees:
        if package.fix(module):
            print(f"fixed {package.paths[module].relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
