"""Lesson 6's wrong answers: the predictions' slips (the upload mistaken for the bill), the
cache taken to outlive its 5 minutes, and the first call of a cached loop taken to pay off."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.checks import caching_and_threads as key
from toolcall_lab.models import TEACHING_MODEL

ROWS = [
    Row("6 predict_first_call", key.predict_first_call, (TEACHING_MODEL,), lambda: "dearer",
        (lambda: "cheaper", lambda: "not dearer", lambda: 1, lambda: "same")),
    Row("6 predict_thread_bill", key.predict_thread_bill, ([300, 420, 540], [300, 420, 540]),
        lambda: "same",
        (lambda: "fewer",  # what the upload does, not the bill
         lambda: "the same",  # more than the one word
         lambda: "not the same", lambda: "SAME!", lambda: 0, lambda: True)),
    Row("6 q1", key.q1, (), lambda: "no",
        (lambda: "yes", lambda: "no, probably", lambda: 0, lambda: False)),
    Row("6 exercise_1", key.exercise_1, (TEACHING_MODEL,), lambda: 2,
        (lambda: 1,  # call 1 alone: the write is dearer than plain input
         lambda: "2", lambda: 3, lambda: 2.5)),
]
