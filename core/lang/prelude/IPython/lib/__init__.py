# IPython.lib: its pretty printer (IPython.lib.pretty).
