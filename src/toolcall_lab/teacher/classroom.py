"""The three links that open a lesson for a class: a JupyterHub's, Binder's and Colab's.

A teacher hands learners one link per lesson. Each service spells it its own way:

- **nbgitpuller on a JupyterHub** (https://nbgitpuller.readthedocs.io/en/latest/link.html):
  `HUB/hub/user-redirect/git-pull?repo=...&branch=...&urlpath=lab/tree/FOLDER/notebooks/LESSON`.
  The hub starts the learner's server, nbgitpuller clones the repository into a folder named
  after the repository URL's last part (or, the next time, merges the teacher's updates into
  the learner's copy), then JupyterLab opens the lesson.
- **Binder** (https://mybinder.readthedocs.io/en/latest/howto/user_interface.html):
  `https://mybinder.org/v2/gh/OWNER/REPO/BRANCH?labpath=notebooks/LESSON`; the repository is
  built from its environment.yml and postBuild, and JupyterLab opens the lesson.
- **Colab** (https://colab.research.google.com/github/): `https://colab.research.google.com/
  github/OWNER/REPO/blob/BRANCH/notebooks/LESSON`; Colab opens one notebook, in a kernel without
  the kit, and each lesson's first code cell installs it there from the tag of the kit's version,
  with the lessons' packages at their locked versions (`teacher.hosted`). Give `--branch` that
  tag (`v0.1.0`) so the lesson a learner opens is the one the installed kit was made with.

    >>> link = nbgitpuller_link("https://hub.example.edu", "https://github.com/me/toolcall-lab", lesson=1)
    >>> print(link.replace("&", "\\n    &"))
    https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Fme%2Ftoolcall-lab
        &branch=main
        &urlpath=lab%2Ftree%2Ftoolcall-lab%2Fnotebooks%2F01_one_tool_call.ipynb
    >>> print(binder_link("https://github.com/me/toolcall-lab"))
    https://mybinder.org/v2/gh/me/toolcall-lab/main?labpath=notebooks%2F00_start_here.ipynb

Binder's `gh` scheme and Colab's `github` scheme need a GitHub repository; for another host
`links` says so instead of printing a link that would not work. Left out: GitLab and Zenodo
Binder links, nbgitpuller's `depth` and `targetpath` options, Colab's Drive links.
"""

from __future__ import annotations

import re
import urllib.parse

from ..errors import UsageError

__all__ = ["HUB_PLACEHOLDER", "LESSONS", "binder_link", "colab_link", "github_repo", "lesson_file", "links",
           "nbgitpuller_link"]

#: The lessons, in order: what `lesson_file(number)` picks from. A test pins it to notebooks/.
LESSONS = (
    "00_start_here.ipynb",
    "01_one_tool_call.ipynb",
    "02_why_tool_calling.ipynb",
    "03_on_the_wire.ipynb",
    "04_through_the_sdks.ipynb",
    "05_the_bill.ipynb",
    "06_caching_and_threads.ipynb",
    "07_transcript_as_data.ipynb",
    "08_frozen_history.ipynb",
    "09_your_own_provider.ipynb",
    "10_an_adapter_of_your_own.ipynb",
    "11_when_the_model_misbehaves.ipynb",
    "12_reading_the_stop_reason.ipynb",
    "13_steering_and_guarding.ipynb",
    "14_an_instruction_in_a_result.ipynb",
    "15_reasoning_on_the_wire.ipynb",
    "16_reasoning_across_turns.ipynb",
    "17_local_models.ipynb",
    "18_reading_calls_from_text.ipynb",
    "19_caching_for_real.ipynb",
    "20_compaction_and_server_tools.ipynb",
    "21_streaming_on_the_wire.ipynb",
    "22_when_a_stream_breaks.ipynb",
    "23_tools_from_another_process.ipynb",
    "24_what_the_server_says.ipynb",
    "25_structured_output.ipynb",
    "26_measuring_a_model.ipynb",
    "27_telling_versions_apart.ipynb",
    "28_when_a_tool_misbehaves.ipynb",
    "29_a_run_that_outlives_its_process.ipynb",
)
HUB_PLACEHOLDER = "https://YOUR-HUB"  # what `links` prints in a hub link when no --hub is given


def lesson_file(lesson: int | str) -> str:
    """A lesson's file name, from its number, its file name, or its name without `.ipynb`.

    >>> {lesson_file(name) for name in (5, "5", "05_the_bill", "notebooks/05_the_bill.ipynb")}
    {'05_the_bill.ipynb'}
    """
    text = str(lesson).strip().removeprefix("notebooks/")
    # subtle: str.isdigit() takes "²" and "٣" too, which int() refuses; a lesson number is ASCII digits
    if re.fullmatch(r"[0-9]+", text):
        found = [name for name in LESSONS if int(name[:2]) == int(text)]
    else:
        found = [name for name in LESSONS if text in (name, name.removesuffix(".ipynb"))]
    if not found:
        raise UsageError(f"there is no lesson {lesson!r}: give a number from 0 to {len(LESSONS) - 1} "
                         f"or a file name such as {LESSONS[1]!r}.")
    return found[0]


def github_repo(repo: str) -> tuple[str, str] | None:
    """(owner, name) of a GitHub repository URL, or None for any other host.

    >>> github_repo("https://github.com/me/toolcall-lab.git"), github_repo("git@github.com:me/toolcall-lab")
    (('me', 'toolcall-lab'), ('me', 'toolcall-lab'))
    >>> print(github_repo("https://gitlab.com/me/toolcall-lab"))
    None
    """
    github = r"(?:https?://(?:www\.)?github\.com/|git@github\.com:)"
    match = re.fullmatch(github + r"([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repo.strip())
    return (match[1], match[2]) if match else None


def _plain_text(**values: str | None) -> None:
    """Refuse text a link cannot carry: bytes that were not UTF-8 (a terminal in another encoding
    hands them to Python as lone surrogates, "\\udcff"), or a control character.

    >>> _plain_text(repo="https://github.com/me/toolcall-lab", branch="main\\udcff")
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: the branch 'main\\udcff' holds bytes that are not UTF-8 text ...
    """
    for name, value in values.items():
        if value is None:
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"the {name} {value!r} holds bytes that are not UTF-8 text (a terminal set "
                             "to another encoding?); type it again as plain text.") from None
        if not value.isprintable():
            raise UsageError(f"the {name} {value!r} holds a control character; type it again as plain text.")


def _folder(repo: str) -> str:
    # subtle: nbgitpuller's default target folder is the URL's last part, as is (".git" kept):
    # `repo.rstrip('/').split('/')[-1]` in nbgitpuller/handlers.py. The lesson path must match it.
    return repo.rstrip("/").split("/")[-1]


def nbgitpuller_link(hub: str, repo: str, *, branch: str = "main", lesson: int | str = 0) -> str:
    """The link that clones (or updates) `repo` on `hub` and opens `lesson` in JupyterLab.

    The folder in the learner's home is named after the URL's last part, as nbgitpuller names it:

    >>> link = nbgitpuller_link("http://127.0.0.1:8000/", "file:///tmp/toolcall-lab", branch="dev", lesson=3)
    >>> print(link.replace("&", "\\n    &"))
    http://127.0.0.1:8000/hub/user-redirect/git-pull?repo=file%3A%2F%2F%2Ftmp%2Ftoolcall-lab
        &branch=dev
        &urlpath=lab%2Ftree%2Ftoolcall-lab%2Fnotebooks%2F03_on_the_wire.ipynb
    """
    _plain_text(hub=hub, repo=repo, branch=branch)
    query = {"repo": repo, "branch": branch,
             "urlpath": f"lab/tree/{_folder(repo)}/notebooks/{lesson_file(lesson)}"}
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urllib.parse.urlencode(query, safe='')}"


def _github_or_raise(repo: str, service: str) -> tuple[str, str]:
    found = github_repo(repo)
    if found is None:
        raise UsageError(f"{service} links need a GitHub repository (https://github.com/OWNER/REPO), "
                         f"not {repo!r}: push the kit to GitHub, or use the nbgitpuller link on your hub.")
    return found


def binder_link(repo: str, *, branch: str = "main", lesson: int | str = 0) -> str:
    """The mybinder.org link that builds `repo` and opens `lesson` in JupyterLab (GitHub only).

    >>> print(binder_link("https://github.com/me/toolcall-lab", branch="v1", lesson=1))
    https://mybinder.org/v2/gh/me/toolcall-lab/v1?labpath=notebooks%2F01_one_tool_call.ipynb
    """
    _plain_text(repo=repo, branch=branch)
    owner, name = _github_or_raise(repo, "Binder")
    query = urllib.parse.urlencode({"labpath": f"notebooks/{lesson_file(lesson)}"}, safe="")
    return f"https://mybinder.org/v2/gh/{owner}/{name}/{urllib.parse.quote(branch, safe='')}?{query}"


def colab_link(repo: str, *, branch: str = "main", lesson: int | str = 0) -> str:
    """The Colab link that opens `lesson` straight from GitHub (GitHub only).

    >>> print(colab_link("https://github.com/me/toolcall-lab", lesson="03_on_the_wire"))
    https://colab.research.google.com/github/me/toolcall-lab/blob/main/notebooks/03_on_the_wire.ipynb
    """
    _plain_text(repo=repo, branch=branch)
    owner, name = _github_or_raise(repo, "Colab")
    return (f"https://colab.research.google.com/github/{owner}/{name}/blob/"
            f"{urllib.parse.quote(branch, safe='/')}/notebooks/{lesson_file(lesson)}")


def links(repo: str, *, hub: str | None = None, branch: str = "main",
          lesson: int | str = 0) -> dict[str, str]:
    """Each service's link for `lesson`: a link, or a sentence saying why there is none.

    >>> for service, link in links("https://gitlab.com/me/toolcall-lab", lesson=1).items():
    ...     print(f"{service}: {link[:75]}...")
    hub: https://YOUR-HUB/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgitlab.com%2...
    binder: (none) Binder links need a GitHub repository (https://github.com/OWNER/REPO...
    colab: (none) Colab links need a GitHub repository (https://github.com/OWNER/REPO)...
    """
    lesson = lesson_file(lesson)  # a wrong lesson is one error, not three
    _plain_text(repo=repo, hub=hub, branch=branch)  # ... and so is a wrong repo, hub or branch
    found = {"hub": nbgitpuller_link(hub or HUB_PLACEHOLDER, repo, branch=branch, lesson=lesson)}
    for service, make in (("binder", binder_link), ("colab", colab_link)):
        try:
            found[service] = make(repo, branch=branch, lesson=lesson)
        except UsageError as exc:
            found[service] = f"(none) {exc}"
    return found
