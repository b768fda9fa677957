# The old path, for type checkers (at run time _old_paths.MOVED answers it): see views/plots.py.
from toolcall_lab.views.plots import *
