# IPython.lib.pretty: the text Jupyter shows for a value (its text/plain
# form, for a cell's Out value and for display()). Lists, tuples, dicts and
# sets are laid out within 79 columns, an item a line once they do not fit;
# an item whose repr has several lines keeps them under its first column;
# an object with Python's default repr reads "<__main__.A at 0x...>".
# Everything else is its repr. The layout is IPython's: groups that break
# outermost first once a line would pass the width (Oppen's algorithm as
# IPython writes it, its queue's quirks included, so the lines break where
# Jupyter breaks them).

MAX_WIDTH = 79
MAX_SEQ_LENGTH = 1000


class _Text:
    def __init__(self):
        self.pieces = []
        self.width = 0

    def output(self, out, output_width):
        for piece in self.pieces:
            out.append(piece)
        return output_width + self.width

    def add(self, piece, width):
        self.pieces.append(piece)
        self.width += width


class _Breakable:
    def __init__(self, sep, width, printer):
        self.sep = sep
        self.width = width
        self.printer = printer
        self.indentation = printer.indentation
        self.group = printer.group_stack[-1]
        self.group.breakables.append(self)

    def output(self, out, output_width):
        self.group.breakables.pop(0)
        if self.group.want_break:
            out.append("\n")
            out.append(" " * self.indentation)
            return self.indentation
        if not self.group.breakables:
            self.printer.queue.remove(self.group)
        out.append(self.sep)
        return output_width + self.width


class _Group:
    def __init__(self, depth):
        self.depth = depth
        self.breakables = []
        self.want_break = False


class _GroupQueue:
    # The open groups by depth: the next to break is the outermost one with
    # a breakable left.
    def __init__(self, group):
        self.stacks = []
        self.enq(group)

    def enq(self, group):
        while group.depth > len(self.stacks) - 1:
            self.stacks.append([])
        self.stacks[group.depth].append(group)

    def deq(self):
        for stack in self.stacks:
            n = len(stack)
            for k in range(n):
                group = stack[n - 1 - k]
                if group.breakables:
                    # IPython deletes at the index counted from the end's
                    # side; the same keeps the same breaks.
                    del stack[k]
                    group.want_break = True
                    return group
            for group in stack:
                group.want_break = True
            while stack:
                stack.pop()
        return None

    def remove(self, group):
        stack = self.stacks[group.depth]
        for k in range(len(stack)):
            if stack[k] is group:
                del stack[k]
                return


class _Printer:
    def __init__(self):
        self.out = []
        self.output_width = 0
        self.buffer_width = 0
        self.buffer = []
        root = _Group(0)
        self.group_stack = [root]
        self.queue = _GroupQueue(root)
        self.indentation = 0
        self.stack = []

    def _break_one_group(self, group):
        while group.breakables:
            x = self.buffer.pop(0)
            self.output_width = x.output(self.out, self.output_width)
            self.buffer_width -= x.width
        while self.buffer and isinstance(self.buffer[0], _Text):
            x = self.buffer.pop(0)
            self.output_width = x.output(self.out, self.output_width)
            self.buffer_width -= x.width

    def _break_outer_groups(self):
        while MAX_WIDTH < self.output_width + self.buffer_width:
            group = self.queue.deq()
            if group is None:
                return
            self._break_one_group(group)

    def text(self, piece):
        width = len(piece)
        if self.buffer:
            last = self.buffer[-1]
            if not isinstance(last, _Text):
                last = _Text()
                self.buffer.append(last)
            last.add(piece, width)
            self.buffer_width += width
            self._break_outer_groups()
        else:
            self.out.append(piece)
            self.output_width += width

    def breakable(self):
        group = self.group_stack[-1]
        if group.want_break:
            self.flush()
            self.out.append("\n")
            self.out.append(" " * self.indentation)
            self.output_width = self.indentation
            self.buffer_width = 0
        else:
            self.buffer.append(_Breakable(" ", 1, self))
            self.buffer_width += 1
            self._break_outer_groups()

    def break_(self):
        group = self.queue.deq()
        if group is not None:
            self._break_one_group(group)
        self.flush()
        self.out.append("\n")
        self.out.append(" " * self.indentation)
        self.output_width = self.indentation
        self.buffer_width = 0

    def begin_group(self, indent=0, opening=""):
        if opening:
            self.text(opening)
        group = _Group(self.group_stack[-1].depth + 1)
        self.group_stack.append(group)
        self.queue.enq(group)
        self.indentation += indent

    def end_group(self, dedent=0, closing=""):
        self.indentation -= dedent
        group = self.group_stack.pop()
        if not group.breakables:
            self.queue.remove(group)
        if closing:
            self.text(closing)

    def flush(self):
        for x in self.buffer:
            # As IPython counts it (the width it returns is already a sum).
            self.output_width += x.output(self.out, self.output_width)
        self.buffer = []
        self.buffer_width = 0

    def items(self, opening, closing, values, is_tuple):
        step = len(opening)
        self.begin_group(step, opening)
        for k in range(len(values)):
            if k >= MAX_SEQ_LENGTH:
                self.text(",")
                self.breakable()
                self.text("...")
                break
            if k:
                self.text(",")
                self.breakable()
            self.pretty(values[k])
        if is_tuple and len(values) == 1:
            self.text(",")
        self.end_group(step, closing)

    def mapping(self, d):
        self.begin_group(1, "{")
        keys = list(d.keys())
        for k in range(len(keys)):
            if k >= MAX_SEQ_LENGTH:
                self.text(",")
                self.breakable()
                self.text("...")
                break
            if k:
                self.text(",")
                self.breakable()
            self.pretty(keys[k])
            self.text(": ")
            self.pretty(d[keys[k]])
        self.end_group(1, "}")

    def repr_lines(self, text):
        self.begin_group()
        lines = text.splitlines()
        for k in range(len(lines)):
            if k:
                self.break_()
            self.text(lines[k])
        self.end_group()

    def pretty(self, obj):
        key = id(obj)
        cycle = key in self.stack
        self.stack.append(key)
        self.begin_group()
        kind = type(obj)
        # torch.Size is a tuple here: its own repr, as IPython finds it.
        if kind is tuple and not repr(obj).startswith("("):
            kind = None
        if kind is list or kind is tuple:
            opening = "[" if kind is list else "("
            closing = "]" if kind is list else ")"
            if cycle:
                self.text(opening + "..." + closing)
            else:
                self.items(opening, closing, obj, kind is tuple)
        elif kind is dict:
            if cycle:
                self.text("{...}")
            else:
                self.mapping(obj)
        elif kind is set or _name_of(kind) == "frozenset":
            name = "set" if kind is set else "frozenset"
            if len(obj) == 0:
                self.text(name + "()")
            else:
                values = list(obj)
                if len(values) < MAX_SEQ_LENGTH:
                    values = _sorted(values)
                if kind is set:
                    self.items("{", "}", values, False)
                else:
                    self.items("frozenset({", "})", values, False)
        else:
            self.repr_lines(_plain_repr(obj))
        self.end_group()
        self.stack.pop()


def _name_of(kind):
    return getattr(kind, "__name__", "")


def _sorted(values):
    try:
        return sorted(values)
    except Exception:
        try:
            return sorted(values, key=str)
        except Exception:
            return values


def _plain_repr(obj):
    text = repr(obj)
    # Python's default repr, "<__main__.A object at 0x...>", as IPython
    # writes it; a class, "<class '__main__.A'>", by its dotted name.
    if text.startswith("<class '") and text.endswith("'>") and isinstance(obj, type):
        name = text[len("<class '"):-2]
        if name.startswith("builtins."):
            name = name[len("builtins."):]
        return name
    if text.startswith("<") and text.endswith(">") and "\n" not in text:
        at = text.find(" object at 0x")
        if at > 0 and " " not in text[1:at]:
            return text[:at] + text[at + len(" object"):]
    return text


def pretty(obj):
    printer = _Printer()
    printer.pretty(obj)
    printer.flush()
    return "".join(printer.out)
