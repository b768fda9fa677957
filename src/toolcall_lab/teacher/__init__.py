"""The teacher's side: what runs a class rather than a lesson, and what sets a learner's machine up.
No lesson imports it at run time except `doctor.check_environment` (the start page) and, only
where the kit was missing, `hosted.install_lessons_packages` (every lesson's first cell);
the README prices a class with `budget.class_budget`.

    cli.py           `python -m toolcall_lab` (demo, serve, figures, budget, handouts, ...)
    budget.py        a class's tokens, dollars and burst of requests (`python -m toolcall_lab budget`)
    lesson_usage.py  MeterDouble: what each lesson's Run All sends, measured into data/lesson_usage.json
    classroom.py     a lesson's nbgitpuller, Binder and Colab links
    solutions.py     a teacher's solved copy of a lesson, filled from the answer keys
    handouts.py      a one-page printable handout per lesson
    figures.py       the PNGs in figures/, drawn by views/plots.py (`python -m toolcall_lab figures`)
    locked.py        the versions the lessons were checked with (data/locked.json, from uv.lock)
    doctor.py        `python -m toolcall_lab doctor`: this environment against those versions
    hosted.py        a lesson's first cell: the kit and the lessons' packages where the kit is missing
"""

__all__: list[str] = []
