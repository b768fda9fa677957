# The old path, for type checkers (at run time _old_paths.MOVED answers it): see views/report.py.
from toolcall_lab.views.report import *
