"""Run lessons as Colab would: the .ipynb alone, in a kernel without the kit, `google.colab` imported.

By hand, not by pytest (it needs PyPI, and minutes). Make a bare environment holding only what a
hosted notebook preinstalls (Colab's own versions, from googlecolab/backend-info's pip-freeze.txt),
build the kit's wheel, and run lessons with the environment's Python:

    python3 -m venv /tmp/hosted && /tmp/hosted/bin/python -m pip install -q \\
        ipykernel==6.17.1 ipython==7.34.0 traitlets==5.7.1 jupyter-client==7.4.9 \\
        nbclient==0.10.4 nbformat==5.11.1 ipywidgets==7.7.1 matplotlib==3.10.0 numpy==2.1.3 \\
        pillow==11.3.0 openai==2.54.0 pydantic==2.13.4 httpx==0.28.1 jsonschema==4.26.0
    python -m pip wheel --no-deps -w /tmp/kitwheel .
    /tmp/hosted/bin/python tests/hosted/run_lesson.py \\
        --kit /tmp/kitwheel/toolcall_lab-0.1.0-py3-none-any.whl \\
        notebooks/00_start_here.ipynb notebooks/05_the_bill.ipynb

For each lesson it copies the .ipynb alone into an empty folder (what Colab has: one notebook,
no clone beside it), starts a kernel there whose startup imports a stand-in `google.colab` (as
Colab's kernel imports the real one), with TOOLCALL_LAB_KIT pointing the first cell at the wheel,
and runs every cell. If the first cell asks for a restart, it restarts and runs the lesson again,
as a learner would. It prints the first cell's output, the cells that raised, how many widget
views were tagged by the stand-in's widget manager, what the cells whose output nbval does not
compare said, and the code cells whose text output differs from the committed one. Exit 1 if
a cell raised. The environment keeps what the first run installed: to start from nothing again,
make it again.

The stand-in is ours, not Colab's code: `enable_custom_widget_manager()` records that it was
called and, like Colab's, adds a mark to each widget view the kernel displays from then on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

STAND_IN = {
    "google/colab/__init__.py": '"""A stand-in for Colab\'s google.colab: only its output module."""\n'
                                "from . import output\n",
    "google/colab/output/__init__.py": textwrap.dedent('''\
        """A stand-in for google.colab.output: the custom widget manager switch, recorded."""
        import os

        import IPython

        WIDGET = "application/vnd.jupyter.widget-view+json"
        _hooked = False


        def _mark(message):
            content = message.get("content") or {}
            if WIDGET in content.get("data", {}):
                content.setdefault("metadata", {}).setdefault(WIDGET, {})["stand-in"] = "custom manager"
            return message


        def enable_custom_widget_manager():
            global _hooked
            with open(os.environ["STAND_IN_LOG"], "a", encoding="utf-8") as log:
                log.write("enable_custom_widget_manager\\n")
            if not _hooked:
                IPython.get_ipython().display_pub.register_hook(_mark)
                _hooked = True
        '''),
}
RESTART = "restart it"


def _text(outputs: list[dict]) -> str:
    parts = []
    for output in outputs:
        if output["output_type"] == "stream":
            parts.append("".join(output["text"]))
        elif "data" in output:
            parts.append("".join(output["data"].get("text/plain", "")))
        elif output["output_type"] == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "".join(parts)


def _ignored(cell: dict) -> bool:
    return ("nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])
            or "# NBVAL_IGNORE_OUTPUT" in "".join(cell["source"]))


def execute(lesson: Path, folder: Path, env: dict[str, str]):
    import nbclient
    import nbformat

    notebook = nbformat.read(folder / lesson.name, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, allow_errors=True, kernel_name="python3",
                                     resources={"metadata": {"path": str(folder)}})
    saved = dict(os.environ)
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return notebook


def run(lesson: Path, kit: str) -> bool:
    committed = json.loads(lesson.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="hosted-") as tmp:
        tmp_path = Path(tmp)
        for name, text in STAND_IN.items():
            (tmp_path / "stand-in" / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "stand-in" / name).write_text(text, encoding="utf-8")
        startup = tmp_path / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-colab.py").write_text("import google.colab\n", encoding="utf-8")
        folder = tmp_path / "content"  # Colab's working folder, holding nothing of the kit
        folder.mkdir()
        shutil.copy(lesson, folder / lesson.name)
        log = tmp_path / "stand-in.log"
        env = {"PYTHONPATH": str(tmp_path / "stand-in"), "IPYTHONDIR": str(tmp_path / "ipython"),
               "TOOLCALL_LAB_KIT": kit, "STAND_IN_LOG": str(log), "MPLBACKEND": "agg"}
        notebook = execute(lesson, folder, env)
        first = next(c for c in notebook.cells if c.cell_type == "code")
        print(f"== {lesson.name}: first cell said:\n{textwrap.indent(_text(first.outputs), '   ')}", end="")
        if RESTART in _text(first.outputs):
            print("   ... restarting the kernel and running the lesson again, as the cell asks")
            notebook = execute(lesson, folder, env)
            first = next(c for c in notebook.cells if c.cell_type == "code")
            print(f"   second run, first cell said: {_text(first.outputs)!r}")
        calls = log.read_text(encoding="utf-8").count("enable_custom_widget_manager") if log.exists() else 0
    code = [(i, c) for i, c in enumerate(notebook.cells) if c.cell_type == "code"]
    errors = [(i, o) for i, c in code for o in c.outputs if o.output_type == "error"]
    views = [o for _, c in code for o in c.outputs
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    marked = [o for o in views if "stand-in" in o.get("metadata", {}).get(
        "application/vnd.jupyter.widget-view+json", {})]
    was = {i: cell for i, cell in enumerate(committed["cells"])}
    compared = [(i, cell) for i, cell in code[1:] if not _ignored(was[i])]  # not the install cell
    differ = [i for i, cell in compared if _text(cell.outputs) != _text(was[i]["outputs"])]
    print(f"   {len(code)} code cells run, {len(errors)} raised; widget manager switched on {calls} times; "
          f"{len(marked)} of {len(views)} widget views marked; {len(differ)} compared outputs differ "
          "from the committed ones")
    for i, cell in code[1:]:
        if _ignored(was[i]):
            print(f"   cell {i} (output not compared) said: {_text(cell.outputs).strip()[:300]!r}")
    for i, output in errors:
        print(f"   cell {i} raised {output['ename']}: {output['evalue'][:200]}")
    for i in differ[:5]:
        print(f"   cell {i} printed {_text(dict(code)[i].outputs)[:300]!r}\n"
              f"      committed {_text(was[i]['outputs'])[:300]!r}")
    return not errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="+", type=Path)
    parser.add_argument("--kit", required=True, help="what the first cell installs the kit from (a wheel)")
    args = parser.parse_args()
    results = [run(lesson.resolve(), args.kit) for lesson in args.lessons]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
