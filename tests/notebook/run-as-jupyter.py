#!/usr/bin/env python3
"""Run a notebook's code cells the way Jupyter runs them, with the real
Python and PyTorch 1.13 (/usr/bin/python3), for the expected output of
Chainrule's notebook cases: tests/app/cases/notebook-*.ipynb.

usage: /usr/bin/python3 run-as-jupyter.py NB.ipynb > NB.out 2> NB.stderr

Jupyter is not installed where the cases are recorded; this stands in for
it, doing what IPython's kernel does with a cell: one namespace for all
cells; a cell that fails prints its traceback and the next cell runs; a
cell's last statement, when an expression, shows its value's repr unless it
is None or the line ends with ';'; display(x) prints x's text/plain form;
IPython.display's objects print as "<IPython.core.display.Math object>"
(IPython's DisplayObject.__repr__). IPython's own lines are handled as
Chainrule handles them: `%time stmt` runs stmt, `%%time` runs the cell,
other magics and `!shell` lines are skipped. Exit status 1 when a cell
failed.
"""
import ast
import json
import sys
import traceback
import types


class DisplayObject:
    def __init__(self, data=None, url=None, filename=None, metadata=None):
        self.data = data

    def __repr__(self):
        return "<IPython.core.display.%s object>" % type(self).__name__


def display(*objs, **kwargs):
    for obj in objs:
        print(repr(obj))


def install_ipython():
    display_module = types.ModuleType("IPython.display")
    for name in ("Math", "Latex", "Markdown", "HTML", "Javascript", "SVG", "JSON", "Image"):
        setattr(display_module, name, type(name, (DisplayObject,), {}))
    display_module.display = display
    package = types.ModuleType("IPython")
    package.display = display_module
    sys.modules["IPython"] = package
    sys.modules["IPython.display"] = display_module
    import builtins
    builtins.display = display


def python_lines(source):
    lines = source.split("\n")
    out = []
    for i, line in enumerate(lines):
        text = line.lstrip()
        indent = line[: len(line) - len(text)]
        if i == 0 and text.startswith("%%"):
            name = text[2:].split()[0] if text[2:].split() else ""
            if name not in ("time", "timeit", "prun", "capture"):
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


def ends_with_semicolon(source, line):
    text = source.split("\n")[line - 1]
    code = text.split("#", 1)[0].rstrip()
    return code.endswith(";")


def run_cell(number, source, namespace):
    filename = "<cell %d>" % number
    try:
        tree = ast.parse(source, filename)
    except SyntaxError:
        sys.stdout.flush()
        traceback.print_exc(limit=0)
        return False
    shown = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) \
            and not ends_with_semicolon(source, tree.body[-1].end_lineno):
        shown = ast.Expression(tree.body.pop().value)
    try:
        exec(compile(tree, filename, "exec"), namespace)
        if shown is not None:
            value = eval(compile(shown, filename, "eval"), namespace)
            if value is not None:
                print(repr(value))
    except Exception:
        sys.stdout.flush()
        kind, value, trace = sys.exc_info()
        traceback.print_exception(kind, value, trace.tb_next)
        sys.stderr.flush()
        return False
    return True


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        notebook = json.load(f)
    install_ipython()
    namespace = {"__name__": "__main__"}
    failed = 0
    number = 0
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        number += 1
        source = cell["source"]
        if isinstance(source, list):
            source = "".join(source)
        if not run_cell(number, python_lines(source), namespace):
            failed += 1
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
