"""A class on JupyterHub, Binder or Colab: the links, the hub settings, and two promises the lessons keep.

- `python -m toolcall_lab links` prints each service's link in that service's own scheme;
- classroom/ holds settings whose keys the tools document (each checked against the source
  it was read from), and one copy of the quiet-JupyterLab settings that dev.py writes;
- the lessons write no file (nbgitpuller merges a learner's copy with the teacher's updates,
  so a lesson that wrote into a tracked file would make that merge fail), and every API
  double a lesson starts takes a free port (learners on one machine share its loopback).

tests/test_hub.py proves the links and the settings on a real JupyterHub.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import subprocess
import sys
import tomllib
import urllib.parse
from pathlib import Path

import pytest

from toolcall_lab import ApiDouble
from toolcall_lab.errors import UsageError
from toolcall_lab.teacher.classroom import (
    LESSONS,
    binder_link,
    colab_link,
    lesson_file,
    links,
    nbgitpuller_link,
)

ROOT = Path(__file__).parents[1]
CLASSROOM = ROOT / "classroom"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REPO = "https://github.com/toolcall-lab/toolcall-lab"


# -- the links ------------------------------------------------------------------------------------

def test_the_lessons_the_links_know_are_the_lessons_in_notebooks():
    assert LESSONS == tuple(path.name for path in NOTEBOOKS)


def test_a_lesson_is_named_by_number_or_file_name():
    names = {lesson_file(1), lesson_file("01"), lesson_file("01_one_tool_call.ipynb")}
    assert names == {"01_one_tool_call.ipynb"}
    with pytest.raises(UsageError, match="there is no lesson '99'"):
        lesson_file("99")


def test_the_hub_link_is_nbgitpullers_and_opens_the_lesson_in_the_clone():
    link = nbgitpuller_link("https://hub.example.edu/", REPO + ".git", branch="spring", lesson=3)
    url = urllib.parse.urlsplit(link)
    assert (url.scheme, url.netloc, url.path) == ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
    query = urllib.parse.parse_qs(url.query, strict_parsing=True)
    # nbgitpuller clones into a folder named after the URL's last part, ".git" and all
    assert query == {"repo": [REPO + ".git"], "branch": ["spring"],
                     "urlpath": ["lab/tree/toolcall-lab.git/notebooks/03_on_the_wire.ipynb"]}
    assert "/" not in url.query.split("repo=")[1].split("&")[0]  # the repository URL is encoded


def test_the_binder_link_builds_the_branch_and_opens_the_lesson_in_jupyterlab():
    url = urllib.parse.urlsplit(binder_link(REPO + "/", branch="spring", lesson=1))
    assert (url.netloc, url.path) == ("mybinder.org", "/v2/gh/toolcall-lab/toolcall-lab/spring")
    assert urllib.parse.parse_qs(url.query) == {"labpath": ["notebooks/01_one_tool_call.ipynb"]}


def test_the_colab_link_opens_the_notebook_from_github():
    assert colab_link("git@github.com:toolcall-lab/toolcall-lab.git", branch="spring", lesson=5) == (
        "https://colab.research.google.com/github/toolcall-lab/toolcall-lab/blob/spring/notebooks/05_the_bill.ipynb")


def test_binder_and_colab_say_why_there_is_no_link_for_a_repository_off_github():
    found = links("https://gitlab.com/me/toolcall-lab", hub="https://hub.example.edu", lesson=1)
    assert found["hub"].startswith("https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgitlab.com")
    for service in ("binder", "colab"):
        assert found[service].startswith("(none) ") and "need a GitHub repository" in found[service]
    with pytest.raises(UsageError, match="Binder links need a GitHub repository"):
        binder_link("https://gitlab.com/me/toolcall-lab")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolcall_lab", "links", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_the_links_command_prints_all_three():
    done = run_cli("--repo", REPO, "--hub", "https://hub.example.edu", "--lesson", "1")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(maxsplit=1) for line in done.stdout.splitlines())
    assert lines == {"hub:": nbgitpuller_link("https://hub.example.edu", REPO, lesson=1),
                     "binder:": binder_link(REPO, lesson=1), "colab:": colab_link(REPO, lesson=1)}


@pytest.mark.slow
def test_the_links_command_without_a_hub_says_to_pass_one_and_refuses_an_unknown_lesson():
    done = run_cli("--repo", REPO)
    assert done.returncode == 0 and "https://YOUR-HUB/hub/user-redirect/git-pull?" in done.stdout
    assert "pass --hub" in done.stdout and "00_start_here.ipynb" in done.stdout
    refused = run_cli("--repo", REPO, "--lesson", "nine")
    assert refused.returncode == 2 and refused.stderr.startswith("links: there is no lesson 'nine'")
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("lesson", ["²", "٣", "1\u200b", "-1", "+1"])
def test_a_lesson_that_looks_like_a_number_but_is_not_one_is_refused_in_one_sentence(lesson):
    with pytest.raises(UsageError, match=f"there is no lesson {re.escape(repr(lesson))}: give a number"):
        lesson_file(lesson)


@pytest.mark.parametrize("field", ["repo", "hub", "branch"])
def test_text_that_was_not_utf8_or_holds_a_control_character_is_refused_naming_it(field):
    given = {"repo": REPO, "hub": "https://hub.example.edu", "branch": "main"}
    for bad in (given[field] + "\udcff", given[field] + "\n"):  # \udcff: the byte 0xff, as argv decodes it
        with pytest.raises(UsageError, match=f"the {field} {re.escape(repr(bad))} holds "):
            links(**{**given, field: bad})
        if field != "hub":
            with pytest.raises(UsageError, match=f"the {field} "):
                binder_link(**{"repo": REPO, "branch": "main", field: bad})


def test_the_readme_binder_badge_opens_start_here():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    source = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Source"]
    badge = f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_link(source, lesson=0)})"
    assert badge in readme
    assert "classroom/README.md" in readme


# -- the settings ---------------------------------------------------------------------------------

def load_dev():
    spec = importlib.util.spec_from_file_location("dev_for_classroom", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_copy_of_the_quiet_jupyterlab_settings_serves_binder_and_both_hubs():
    overrides = json.loads((CLASSROOM / "lab-overrides.json").read_text())
    assert overrides == load_dev().LAB_OVERRIDES  # what `python3 dev.py lab` writes
    target = "share/jupyter/lab/settings"  # where JupyterLab reads overrides.json, under its prefix
    for path in (ROOT / "postBuild", CLASSROOM / "tljh" / "install.sh", CLASSROOM / "z2jh" / "Dockerfile"):
        text = path.read_text()
        assert "classroom/lab-overrides.json" in text or "../lab-overrides.json" in text, path
        assert target in text and "overrides.json" in text, path


#: The z2jh chart's keys this kit sets, as its values.yaml and reference document them:
#: https://z2jh.jupyter.org/en/stable/resources/reference.html and jupyterhub/values.yaml in
#: https://github.com/jupyterhub/zero-to-jupyterhub-k8s
Z2JH_KEYS = {
    "hub": {"config": None, "extraConfig": None},
    "proxy": {"https": {"enabled": None, "type": None, "hosts": None,
                        "letsencrypt": {"contactEmail": None}}},
    "singleuser": {"image": {"name": None, "tag": None, "pullPolicy": None}, "defaultUrl": None,
                   "extraEnv": None, "memory": {"limit": None, "guarantee": None},
                   "cpu": {"limit": None, "guarantee": None}, "lifecycleHooks": None, "startTimeout": None},
    "cull": {"enabled": None, "users": None, "removeNamedServers": None, "timeout": None, "every": None,
             "concurrency": None, "maxAge": None},
}


def unknown_keys(values: dict, known: dict, prefix: str = "") -> list[str]:
    """Keys of `values` that `known` does not have; below a None in `known`, anything goes."""
    found = []
    for key, value in values.items():
        if key not in known:
            found.append(prefix + key)
        elif isinstance(known[key], dict) and isinstance(value, dict):
            found += unknown_keys(value, known[key], f"{prefix}{key}.")
    return found


def test_the_z2jh_values_parse_and_use_only_the_charts_keys():
    yaml = pytest.importorskip("yaml")  # PyYAML comes with jupyter_events, so with JupyterLab
    values = yaml.safe_load((CLASSROOM / "z2jh" / "values.yaml").read_text())
    assert unknown_keys(values, Z2JH_KEYS) == []
    assert values["singleuser"]["extraEnv"]["TOOLCALL_LAB_PROVIDER"] == "scripted"
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0
    assert not any("KEY" in name for name in values["singleuser"]["extraEnv"])  # no API key on a hub


#: tljh-config's keys this kit sets: the `default` dict of tljh/configurer.py in
#: https://github.com/jupyterhub/the-littlest-jupyterhub (every key tljh-config reads).
TLJH_KEYS = {"user_environment.default_app", "limits.memory", "limits.cpu", "services.cull.enabled",
             "services.cull.timeout", "services.cull.every", "services.cull.concurrency",
             "services.cull.users", "services.cull.max_age", "auth.type",
             "auth.FirstUseAuthenticator.create_users", "https.enabled", "https.letsencrypt.email"}


@pytest.mark.slow
def test_the_tljh_script_sets_only_keys_tljh_config_knows():
    script = (CLASSROOM / "tljh" / "install.sh").read_text()
    keys = re.findall(r"^\s*tljh-config set (\S+) ", script, flags=re.M)
    assert keys and set(keys) <= TLJH_KEYS
    assert "services.cull.enabled" in keys and "tljh-config reload hub" in script
    checked = subprocess.run(["bash", "-n", str(CLASSROOM / "tljh" / "install.sh")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


# -- who can log in (issue 19 item 2) ---------------------------------------------------------------

def load_guard():
    """classroom/hub_guard.py as a module, with JupyterHub's `get_config` faked."""
    traitlets_config = pytest.importorskip("traitlets.config")
    source = (CLASSROOM / "hub_guard.py").read_text()
    namespace = {"get_config": traitlets_config.Config, "__name__": "hub_guard"}
    exec(compile(source, "hub_guard.py", "exec"), namespace)  # an empty Config: PAM, not open
    return namespace, traitlets_config.Config


def config_of(settings: dict):
    """A traitlets Config from {"JupyterHub.authenticator_class": "dummy", ...}."""
    _, Config = load_guard()
    config = Config()
    for dotted, value in settings.items():
        section, name = dotted.rsplit(".", 1)
        setattr(getattr(config, section), name, value)
    return config


@pytest.mark.parametrize("settings", [
    {"JupyterHub.authenticator_class": "dummy"},
    {"JupyterHub.authenticator_class": "jupyterhub.auth.DummyAuthenticator"},
    {"JupyterHub.authenticator_class": "tmpauthenticator.TmpAuthenticator"},
    {"JupyterHub.authenticator_class": "firstuseauthenticator.FirstUseAuthenticator",
     "FirstUseAuthenticator.create_users": True},
    {"JupyterHub.authenticator_class": "dummy", "JupyterHub.ip": "0.0.0.0"},
])
def test_the_guard_refuses_an_open_login(settings, monkeypatch):
    guard, _ = load_guard()
    monkeypatch.setenv("TOOLCALL_LAB_OPEN_LOGIN", "loopback-test")  # not on loopback: no help
    with pytest.raises(SystemExit) as stopped:
        guard["guard"](config_of(settings))
    assert "open to anyone" in str(stopped.value) and "Who can log in" in str(stopped.value)


@pytest.mark.slow
def test_the_guard_refuses_the_dummy_class_itself():
    auth = pytest.importorskip("jupyterhub.auth")
    guard, _ = load_guard()
    assert "DummyAuthenticator" in guard["open_login"](config_of(
        {"JupyterHub.authenticator_class": auth.DummyAuthenticator}))


def test_the_guard_lets_a_loopback_test_say_so_and_lets_closed_logins_through(capsys):
    guard, _ = load_guard()
    loopback = config_of({"JupyterHub.authenticator_class": "dummy", "JupyterHub.ip": "127.0.0.1"})
    guard["guard"](loopback, environ={"TOOLCALL_LAB_OPEN_LOGIN": "loopback-test"})
    assert "WARNING: an open login" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        guard["guard"](loopback, environ={})  # on loopback too, unless the test says so
    for closed in ({}, {"JupyterHub.authenticator_class": "firstuseauthenticator.FirstUseAuthenticator",
                        "FirstUseAuthenticator.create_users": False},
                   {"JupyterHub.authenticator_class": "shared-password"}):
        assert guard["open_login"](config_of(closed)) is None


def test_the_shipped_z2jh_values_have_a_closed_login_https_and_the_guard():
    yaml = pytest.importorskip("yaml")
    text = (CLASSROOM / "z2jh" / "values.yaml").read_text()
    values = yaml.safe_load(text)
    hub = values["hub"]["config"]
    settings = {f"{section}.{name}": value for section, names in hub.items() for name, value in names.items()}
    guard, _ = load_guard()
    assert guard["open_login"](config_of(settings)) is None  # the chart's default (dummy) is open
    assert hub["Authenticator"]["allowed_users"] and hub["Authenticator"]["admin_users"]
    assert not hub["Authenticator"].get("allow_all")
    assert values["proxy"]["https"]["enabled"] is True
    assert "--set-file hub.extraConfig.zz-toolcall-lab-guard=classroom/hub_guard.py" in text


def test_the_tljh_script_makes_an_allow_list_and_installs_the_guard():
    script = (CLASSROOM / "tljh" / "install.sh").read_text()
    set_lines = dict(re.findall(r"^\s*tljh-config set (\S+) (\S+)$", script, flags=re.M))
    # as TLJH's configurer applies them (tljh/configurer.py, update_auth)
    auth_type = set_lines["auth.type"]
    name = auth_type.rsplit(".", 1)[-1]
    settings = {"JupyterHub.authenticator_class": auth_type}
    for key, value in set_lines.items():
        if key.startswith(f"auth.{name}."):
            settings[f"{name}.{key.rsplit('.', 1)[-1]}"] = {"true": True, "false": False}.get(value, value)
    guard, _ = load_guard()
    assert guard["open_login"](config_of(settings)) is None
    assert settings[f"{name}.create_users"] is False
    assert 'cp "$here/../hub_guard.py" /opt/tljh/config/jupyterhub_config.d/' in script
    assert "https.enabled true" in script and "plain HTTP" in script


def test_the_guide_and_the_classroom_page_say_who_can_log_in():
    page = (CLASSROOM / "README.md").read_text()
    guide = (ROOT / "docs" / "teaching.md").read_text()
    assert "## Who can log in" in page
    assert "classroom/README.md#who-can-log-in" in guide
    for text in (page, guide):
        assert "allowed_users" in text or "allow-list" in text


def test_the_hub_config_sets_every_learners_provider_through_spawner_environment():
    traitlets_config = pytest.importorskip("traitlets.config")
    config = traitlets_config.Config()
    source = (CLASSROOM / "tljh" / "jupyterhub_config.d" / "toolcall_lab.py").read_text()
    exec(compile(source, "toolcall_lab.py", "exec"), {"get_config": lambda: config})
    # `.update(...)`, so other files in jupyterhub_config.d keep their variables
    assert config.Spawner.environment.get_value({"OTHER": "kept"}) == {"OTHER": "kept",
                                                                       "TOOLCALL_LAB_PROVIDER": "scripted"}
    assert "environment" in configurable_traits("jupyterhub.spawner", "Spawner")  # a real setting


def configurable_traits(module: str, name: str) -> set[str]:
    """The traits class `name` of `module` declares with `.tag(config=True)`, read from its source.

    subtle: read, not imported: importing jupyterhub.spawner (its database layer) took 3-4 s of
    the quick suite for one name."""
    found = importlib.util.find_spec(module)
    if found is None or found.origin is None:
        pytest.skip(f"{module} is not installed")
    tree = ast.parse(Path(found.origin).read_text(encoding="utf-8"))
    body = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name).body
    return {target.id for node in body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "tag"
            and any(k.arg == "config" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in node.value.keywords)
            for target in node.targets if isinstance(target, ast.Name)}


# -- what the lessons promise a shared machine -----------------------------------------------------

#: Calls that write to the disk, by the name called: open() in a writing mode is checked apart.
WRITING_CALLS = {"write_text", "write_bytes", "mkdir", "makedirs", "touch", "unlink", "rmdir", "rmtree",
                 "remove", "rename", "copy", "copy2", "copyfile", "copytree", "move", "savefig", "save",
                 "dump", "to_csv", "to_parquet", "to_excel"}
WRITING_MAGICS = ("%%writefile", "%save", "%store", "%%file", "!")


def writes_in(source: str) -> list[str]:
    """The places a cell's code writes to the disk.

    >>> writes_in("json.dumps(x)\\nopen('a.txt').read()\\n'x'.replace('a', 'b')")
    []
    >>> writes_in("t.save('run.json')\\nopen('b', mode='w')\\n%%writefile c.py")
    ['%%writefile c.py', "t.save('run.json')", "open('b', mode='w')"]
    """
    lines = source.splitlines()
    found = [line.strip() for line in lines if line.lstrip().startswith(WRITING_MAGICS)]
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        mode = next((arg for arg in node.args[1:2]), None) or next(
            (kw.value for kw in node.keywords if kw.arg == "mode"), None)
        writing_open = (name == "open" and isinstance(mode, ast.Constant)
                        and bool(set(str(mode.value)) & set("wax+")))
        if name in WRITING_CALLS or writing_open:
            found.append(ast.unparse(node))
    return found


def code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


#: The writes a lesson must make, each into a folder outside the repository that the lesson
#: makes and removes itself, so nbgitpuller never meets it.
SAVES_OUTSIDE = {
    # a run saved for a second process to decide, in the lesson's TemporaryDirectory `here`
    "29_a_run_that_outlives_its_process": ["run.pending.save(here / 'pending.json')"],
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_a_lesson_writes_no_file(path):
    # nbgitpuller merges a learner's copy with the teacher's updates: a lesson that wrote into a
    # tracked file would block that merge. A lesson that must save something saves it under a
    # folder of its own outside the repository, then is listed in SAVES_OUTSIDE.
    found = [write for source in code_cells(path) for write in writes_in(source)]
    assert found == SAVES_OUTSIDE.get(path.stem, [])


def test_a_lesson_that_saves_saves_into_a_temporary_folder_it_removes():
    for stem in SAVES_OUTSIDE:
        source = "\n".join(code_cells(ROOT / "notebooks" / f"{stem}.ipynb"))
        assert "here = Path(folder.name)" in source and "TemporaryDirectory(" in source, stem
        assert "folder.cleanup()" in source, stem


def test_every_api_double_a_lesson_starts_takes_a_free_port():
    # All learners on one TLJH machine share its loopback: a fixed port would collide.
    assert inspect.signature(ApiDouble).parameters["port"].default == 0
    for path in NOTEBOOKS:
        for source in code_cells(path):
            code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                             for line in source.splitlines())
            for node in ast.walk(ast.parse(code)):
                name = getattr(node.func, "id", "") if isinstance(node, ast.Call) else ""
                if name in ("ApiDouble", "PartsServer"):
                    fixed = [kw.arg for kw in node.keywords if kw.arg in ("port", "host")]
                    assert fixed == [], (path.name, ast.unparse(node))


def test_the_guide_and_the_classroom_page_give_the_same_hub_figures_and_size_cpu_too():
    # issue 18 §5: the two pages gave different figures (39 vs 46-90 s, 16 vs 12 GB), and no CPU
    page = (CLASSROOM / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")

    def figures(text):
        start = text.index("| three learners at once, two-core machine | measured |")
        table = text[start:text.index("\n\n", start)]
        sizing = text[text.index("**Sizing a hub machine.**"):]
        return table, " ".join(sizing[:sizing.index("\n\n")].split())

    assert figures(page) == figures(guide)
    table, sizing = figures(page)
    assert "CPU per learner" in table and "cores" in sizing and "12 GB for a class of 30" in sizing
