# The old path, for type checkers (at run time _old_paths.MOVED answers it): see teacher/budget.py.
from toolcall_lab.teacher.budget import *
