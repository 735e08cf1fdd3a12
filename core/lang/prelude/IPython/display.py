# IPython.display: what notebooks import (from IPython.display import
# display, Math). The objects live in IPython.core.display, as in IPython.
from IPython.core.display import (DisplayObject, TextDisplayObject, Math, Latex, Markdown,
                                  HTML, Javascript, SVG, JSON, Image, display, clear_output)
