# The old path, for type checkers (at run time _old_paths.MOVED answers it): see views/cost.py.
from toolcall_lab.views.cost import *
