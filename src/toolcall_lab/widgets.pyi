# The old path, for type checkers (at run time _old_paths.MOVED answers it): see views/widgets/.
from toolcall_lab.views.widgets import *
