# collections: the three containers real training code imports from it
# (OrderedDict in nn code and state dicts, namedtuple for results and
# transitions, defaultdict for tallies), written on the interpreter's dict
# and tuple subclasses. Dicts keep insertion order, so OrderedDict only adds
# its printed form and its reordering methods.

__all__ = ['OrderedDict', 'namedtuple', 'defaultdict']


class OrderedDict(dict):
    def __repr__(self):
        if not self:
            return self.__class__.__name__ + '()'
        return self.__class__.__name__ + '(' + repr(list(self.items())) + ')'

    def move_to_end(self, key, last=True):
        value = self.pop(key)
        if last:
            self[key] = value
            return
        rest = list(self.items())
        self.clear()
        self[key] = value
        for k, v in rest:
            self[k] = v

    def popitem(self, last=True):
        if not self:
            raise KeyError('dictionary is empty')
        keys = list(self.keys())
        key = keys[-1] if last else keys[0]
        return key, self.pop(key)

    def copy(self):
        return self.__class__(self)


class defaultdict(dict):
    def __init__(self, default_factory=None, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError('first argument must be callable or None')
        super().__init__(*args, **kwargs)
        self.default_factory = default_factory

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def __repr__(self):
        return 'defaultdict(' + repr(self.default_factory) + ', ' + repr(dict(self)) + ')'

    def copy(self):
        return defaultdict(self.default_factory, self)


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    if isinstance(field_names, str):
        field_names = field_names.replace(',', ' ').split()
    field_names = tuple([str(name) for name in field_names])
    n_fields = len(field_names)
    field_defaults = {}
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > n_fields:
            raise TypeError('Got more default values than field names')
        for name, value in zip(field_names[n_fields - len(defaults):], defaults):
            field_defaults[name] = value

    class _NamedTuple(tuple):
        _fields = field_names
        _field_defaults = field_defaults

        def __new__(cls, *args, **kwargs):
            if len(args) > n_fields:
                raise TypeError(typename + '.__new__() takes ' + str(n_fields + 1)
                                + ' positional arguments but ' + str(len(args) + 1)
                                + ' were given')
            for name in kwargs:
                if name in field_names[:len(args)]:
                    raise TypeError(typename + ".__new__() got multiple values for argument '"
                                    + name + "'")
                if name not in field_names:
                    raise TypeError(typename + ".__new__() got an unexpected keyword argument '"
                                    + name + "'")
            values = list(args)
            for name in field_names[len(args):]:
                if name in kwargs:
                    values.append(kwargs.pop(name))
                elif name in field_defaults:
                    values.append(field_defaults[name])
                else:
                    raise TypeError(typename + ".__new__() missing 1 required positional argument: '"
                                    + name + "'")
            return tuple.__new__(cls, values)

        def __repr__(self):
            parts = [name + '=' + repr(value) for name, value in zip(field_names, self)]
            return self.__class__.__name__ + '(' + ', '.join(parts) + ')'

        @classmethod
        def _make(cls, iterable):
            values = tuple(iterable)
            if len(values) != n_fields:
                raise TypeError('Expected ' + str(n_fields) + ' arguments, got ' + str(len(values)))
            return tuple.__new__(cls, values)

        def _asdict(self):
            return dict(zip(field_names, self))

        def _replace(self, **kwargs):
            values = [kwargs.pop(name, value) for name, value in zip(field_names, self)]
            if kwargs:
                raise ValueError('Got unexpected field names: ' + repr(list(kwargs)))
            return tuple.__new__(self.__class__, values)

    for index, name in enumerate(field_names):
        setattr(_NamedTuple, name, property(lambda self, index=index: self[index]))
    _NamedTuple.__name__ = typename
    _NamedTuple.__qualname__ = typename
    _NamedTuple.__module__ = '__main__' if module is None else module
    return _NamedTuple
