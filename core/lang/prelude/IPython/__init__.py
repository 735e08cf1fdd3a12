# IPython, as far as a notebook's code reaches it when Chainrule runs the
# notebook: its display objects (IPython.display). Chainrule shows text only.


def get_ipython():
    # No IPython shell runs the script: code that asks for one takes its
    # "not in IPython" path.
    return None
