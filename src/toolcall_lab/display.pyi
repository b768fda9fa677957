# The old path, for type checkers (at run time _old_paths.MOVED answers it): see views/display/.
from toolcall_lab.views.display import *
