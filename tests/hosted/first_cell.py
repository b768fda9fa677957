"""Write the install cell (`toolcall_lab.teacher.hosted.first_cell`) as every lesson's first code cell.

    python tests/hosted/first_cell.py [LESSON.ipynb ...]    # default: every lesson in notebooks/

Run it after the version in pyproject.toml changes (the cell installs the tag `v<version>`), then
`python3 dev.py notebooks` to execute the lessons again. A lesson whose first code cell is an older
install cell (it starts with the same comment) gets it replaced; any other lesson gets the cell
inserted before its first code cell. tests/test_hosted.py fails until every lesson has it.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from toolcall_lab.teacher.hosted import first_cell

ROOT = Path(__file__).resolve().parents[2]
CELL_ID = "install-kit"


def the_cell() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return first_cell(version=project["version"], repository=project["urls"]["Source"])


def write(path: Path, text: str) -> bool:
    """Make `text` the first code cell of the lesson at `path`; True if the file changed."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    source = text.splitlines(keepends=True)
    index = next(i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code")
    first = nb["cells"][index]
    if "".join(first["source"]).startswith(text.splitlines()[0]):
        if first["source"] == source:
            return False
        first["source"] = source
    else:
        nb["cells"].insert(index, {"cell_type": "code", "execution_count": None, "id": CELL_ID,
                                   "metadata": {}, "outputs": [], "source": source})
    # the layout dev.py's `rewrite` gives every lesson, so the diff is only the cell
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def main(paths: list[str]) -> int:
    lessons = [Path(p) for p in paths] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    text = the_cell()
    for path in lessons:
        print(f"{path.name}: {'written' if write(path, text) else 'already there'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
