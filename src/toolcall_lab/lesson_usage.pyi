# The old path, for type checkers (at run time _old_paths.MOVED answers it): see teacher/lesson_usage.py.
from toolcall_lab.teacher.lesson_usage import *
