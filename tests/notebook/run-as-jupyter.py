#!/usr/bin/env python3
"""Run a notebook's code cells the way Jupyter runs them, with the real
Python, PyTorch 1.13 and IPython (Debian's python3-torch and
python3-ipython), for the expected output of Chainrule's notebook cases:
tests/app/cases/notebook-*.ipynb.

usage: /usr/bin/python3 run-as-jupyter.py NB.ipynb > NB.out 2> NB.stderr

Each code cell goes to IPython's own InteractiveShell.run_cell, as Jupyter's
kernel sends it: one namespace, a failing cell prints its traceback (on
stderr here, as Jupyter shows it apart from the output) and the next cell
runs, the last expression's value and display() print their text/plain form
(IPython's pretty printer), without the "Out[n]:" prompt, which Jupyter's
text output has not. IPython's own lines are first handled as Chainrule
handles them (its output would not be deterministic otherwise): `%time
stmt` runs stmt, `%%time` runs the cell, other magics and `!shell` lines are
skipped. Exit status 1 when a cell failed.
"""
import json
import sys

from IPython.core.displayhook import DisplayHook
from IPython.core.interactiveshell import InteractiveShell


class TextDisplayHook(DisplayHook):
    """Jupyter's text/plain of a cell's value, without the prompt."""

    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        print(format_dict["text/plain"])


def python_lines(source):
    lines = source.split("\n")
    out = []
    for i, line in enumerate(lines):
        text = line.lstrip()
        indent = line[: len(line) - len(text)]
        if i == 0 and text.startswith("%%"):
            words = text[2:].split()
            if not words or words[0] not in ("time", "timeit", "prun", "capture"):
                return ""
            out.append("")
        elif text.startswith("!") or (text.startswith("%") and not text.startswith("%%")):
            words = text[1:].split(None, 1)
            if text.startswith("%") and words and words[0] in ("time", "timeit", "prun") \
                    and len(words) > 1:
                out.append(indent + words[1])
            else:
                out.append(indent + "pass" if indent else "")
        else:
            out.append(line)
    return "\n".join(out)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        notebook = json.load(f)
    shell = InteractiveShell.instance(displayhook_class=TextDisplayHook, colors="NoColor")

    def show_traceback(etype, evalue, stb):
        sys.stdout.flush()
        print(shell.InteractiveTB.stb2text(stb), file=sys.stderr)
        sys.stderr.flush()

    shell._showtraceback = show_traceback
    failed = 0
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        if isinstance(source, list):
            source = "".join(source)
        result = shell.run_cell(python_lines(source), store_history=True)
        if not result.success:
            failed += 1
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
