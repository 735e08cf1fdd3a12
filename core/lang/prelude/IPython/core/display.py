# IPython.core.display: the objects a notebook shows richly (a formula, a
# table, a picture). Chainrule shows text only, so each object is what
# Jupyter's text/plain form of it prints, "<IPython.core.display.Math
# object>", as the notebook's own stored output shows it.


class DisplayObject:
    def __init__(self, data=None, url=None, filename=None, metadata=None):
        self.data = data
        self.url = url
        self.filename = filename
        self.metadata = metadata

    def __repr__(self):
        return "<IPython.core.display." + type(self).__name__ + " object>"


class TextDisplayObject(DisplayObject):
    pass


class Math(TextDisplayObject):
    pass


class Latex(TextDisplayObject):
    pass


class Markdown(TextDisplayObject):
    pass


class HTML(TextDisplayObject):
    pass


class Javascript(TextDisplayObject):
    pass


class SVG(DisplayObject):
    pass


class JSON(DisplayObject):
    pass


class Image(DisplayObject):
    pass


def display(*objs, **kwargs):
    # Each object's text/plain form on a line of its own, as Jupyter's
    # text output shows a display.
    from IPython.lib.pretty import pretty
    for obj in objs:
        print(pretty(obj))


def clear_output(wait=False):
    pass
