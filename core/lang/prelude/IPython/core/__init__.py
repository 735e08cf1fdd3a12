# IPython.core: its display module is IPython.core.display.
