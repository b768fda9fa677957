"""The teacher's side: what runs a class rather than a lesson. No lesson imports it at run time
except `budget.class_budget` (lesson 8), which keeps its old path `toolcall_lab.budget`.

    cli.py           `python -m toolcall_lab` (demo, serve, figures, budget, handouts, ...)
    budget.py        a class's tokens, dollars and burst of requests (`python -m toolcall_lab budget`)
    lesson_usage.py  MeterDouble: what each lesson's Run All sends, measured into data/lesson_usage.json
    classroom.py     a lesson's nbgitpuller, Binder and Colab links
    solutions.py     a teacher's solved copy of a lesson, filled from the answer keys
    handouts.py      a one-page printable handout per lesson
    figures.py       the PNGs in figures/, drawn by views/plots.py (`python -m toolcall_lab figures`)
"""

__all__: list[str] = []
