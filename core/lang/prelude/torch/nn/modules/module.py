# torch.nn.Module, as PyTorch 1.13 behaves and prints: parameters, buffers and
# submodules registered on assignment, hooks, state_dict, train/eval, repr.
import torch
from torch.nn.parameter import Parameter


class _HandleIds:
    next_id = 0


class RemovableHandle:
    """What register_*_hook returns: remove() takes the hook out again."""

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = hooks_dict
        self.id = _HandleIds.next_id
        _HandleIds.next_id += 1

    def remove(self):
        if self.id in self.hooks_dict_ref:
            del self.hooks_dict_ref[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


class _IncompatibleKeys:
    """load_state_dict's result: a named tuple (missing_keys, unexpected_keys)."""

    def __init__(self, missing_keys, unexpected_keys):
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __iter__(self):
        return iter([self.missing_keys, self.unexpected_keys])

    def __getitem__(self, i):
        return [self.missing_keys, self.unexpected_keys][i]

    def __len__(self):
        return 2

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return '_IncompatibleKeys(missing_keys={}, unexpected_keys={})'.format(
            self.missing_keys, self.unexpected_keys)

    def __str__(self):
        return self.__repr__()


def _addindent(s_, numSpaces):
    s = s_.split('\n')
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * ' ') + line for line in s]
    return first + '\n' + '\n'.join(s)


def _typename(o):
    # torch.typename: 'torch.FloatTensor', 'int', '__main__.Foo'.
    if isinstance(o, torch.Tensor):
        return o.type()
    if o is None or isinstance(o, (bool, int, float, str, list, tuple, dict, set)):
        return type(o).__name__
    return type(o).__module__ + '.' + type(o).__name__


class _BackwardHookState:
    """A module's full backward hooks for one call: the gradients of its
    outputs, caught on the way back, handed with those of its inputs."""

    def __init__(self, module, user_hooks, n_inputs):
        self.module = module
        self.user_hooks = user_hooks
        self.n_inputs = n_inputs
        self.grad_outputs = None
        self.input_positions = None

    def call_hooks(self, grad_inputs):
        result = grad_inputs
        for hook in self.user_hooks:
            try:
                out = hook(self.module, result, self.grad_outputs)
            except BaseException:
                torch._C._record_module_hook(hook, result, None, True)
                raise
            torch._C._record_module_hook(hook, result, out)
            if out is not None:
                # PyTorch takes any sequence of the right length (a list
                # comprehension over grad_input, as the docs' example).
                if isinstance(out, list):
                    out = tuple(out)
                elif not isinstance(out, tuple):
                    out = (out,)
                if len(out) != len(result):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got {}, but expected {}"
                        .format(len(out), len(result)))
                result = out
        return result


class BackwardHookFunction(torch.autograd.Function):
    # Identity on the tensors; on the way back it hands their gradients to
    # hook (a Python function), which may replace them.
    @staticmethod
    def forward(ctx, hook, *args):
        ctx.cr_hook = hook
        outs = tuple([a.view_as(a) for a in args])
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.cr_hook(grads))


class Module:
    """Base class for all neural network modules."""

    dump_patches = False
    _version = 1
    # Read before __init__ ran (a subclass that forgot super().__init__()):
    # __setattr__ and __getattr__ then see None, as PyTorch's see no key.
    _parameters = None
    _buffers = None
    _modules = None

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("{}.__init__() takes 1 positional argument but {} were given".format(
                type(self).__name__, len(args) + 1))
        object.__setattr__(self, 'training', True)
        object.__setattr__(self, '_parameters', {})
        object.__setattr__(self, '_buffers', {})
        object.__setattr__(self, '_non_persistent_buffers_set', set())
        object.__setattr__(self, '_backward_hooks', {})
        object.__setattr__(self, '_is_full_backward_hook', None)
        object.__setattr__(self, '_forward_hooks', {})
        object.__setattr__(self, '_forward_pre_hooks', {})
        object.__setattr__(self, '_state_dict_hooks', {})
        object.__setattr__(self, '_load_state_dict_pre_hooks', {})
        object.__setattr__(self, '_load_state_dict_post_hooks', {})
        object.__setattr__(self, '_modules', {})

    def forward(self, *input):
        raise NotImplementedError(
            'Module [{}] is missing the required "forward" function'.format(type(self).__name__))

    # ---- registration -------------------------------------------------------------------

    def register_buffer(self, name, tensor, persistent=True):
        if self._buffers is None:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got {}".format(_typename(name)))
        elif '.' in name:
            raise KeyError("buffer name can't contain \".\"")
        elif name == '':
            raise KeyError("buffer name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '{}' already exists".format(name))
        elif tensor is not None and not isinstance(tensor, torch.Tensor):
            raise TypeError("cannot assign '{}' object to buffer '{}' "
                            "(torch Tensor or None required)".format(_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if self._parameters is None:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError("parameter name should be a string. Got {}".format(_typename(name)))
        elif '.' in name:
            raise KeyError("parameter name can't contain \".\"")
        elif name == '':
            raise KeyError("parameter name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '{}' already exists".format(name))
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError("cannot assign '{}' object to parameter '{}' "
                            "(torch.nn.Parameter or None required)".format(_typename(param), name))
        elif param.grad_fn:
            raise ValueError(
                "Cannot assign non-leaf Tensor to parameter '{0}'. Model parameters must be created "
                "explicitly. To express '{0}' as a function of another Tensor, compute the value in "
                "the forward() method.".format(name))
        else:
            self._parameters[name] = param
            _name_parameters(param, name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        elif not isinstance(name, str):
            raise TypeError("module name should be a string. Got {}".format(_typename(name)))
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        elif '.' in name:
            raise KeyError("module name can't contain \".\", got: {}".format(name))
        elif name == '':
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module
        _name_parameters(module, name)

    def register_module(self, name, module):
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ---- attributes ---------------------------------------------------------------------

    def __getattr__(self, name):
        params = self._parameters
        if params is not None and name in params:
            return params[name]
        buffers = self._buffers
        if buffers is not None and name in buffers:
            return buffers[name]
        modules = self._modules
        if modules is not None and name in modules:
            return modules[name]
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def __setattr__(self, name, value):
        params = self._parameters
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_attribute(name, 'parameter')
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '{}' as parameter '{}' "
                                "(torch.nn.Parameter or None expected)".format(_typename(value), name))
            self.register_parameter(name, value)
        else:
            modules = self._modules
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._remove_attribute(name, 'module')
                modules[name] = value
                _name_parameters(value, name)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError("cannot assign '{}' as child module '{}' "
                                    "(torch.nn.Module or None expected)".format(_typename(value), name))
                modules[name] = value
            else:
                buffers = self._buffers
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, torch.Tensor):
                        raise TypeError("cannot assign '{}' as buffer '{}' "
                                        "(torch.Tensor or None expected)".format(_typename(value), name))
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def _remove_attribute(self, name, keep):
        # What a name was before it becomes a parameter or a submodule.
        try:
            object.__delattr__(self, name)
        except AttributeError:
            pass
        if keep != 'parameter' and name in self._parameters:
            del self._parameters[name]
        if name in self._buffers:
            del self._buffers[name]
        if keep != 'module' and name in self._modules:
            del self._modules[name]
        self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name):
        if self._parameters is not None and name in self._parameters:
            del self._parameters[name]
        elif self._buffers is not None and name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif self._modules is not None and name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = dir(self.__class__) + list(self.__dict__.keys()) + list(self._parameters.keys()) \
            + list(self._modules.keys()) + list(self._buffers.keys())
        return sorted([key for key in keys if not key[0].isdigit()])

    # ---- calling ------------------------------------------------------------------------

    def _call_impl(self, *input, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks):
            return self.forward(*input, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, input)
            if result is not None:
                if not isinstance(result, tuple):
                    result = (result,)
                input = result
        bw_state = None
        if self._backward_hooks:
            bw_state = _BackwardHookState(self, list(self._backward_hooks.values()), len(input))
            input = self._setup_input_hook(bw_state, input)
        result = self.forward(*input, **kwargs)
        for hook in list(self._forward_hooks.values()):
            hook_result = hook(self, input, result)
            if hook_result is not None:
                result = hook_result
        if bw_state is not None:
            result = self._setup_output_hook(bw_state, result)
        return result

    __call__ = _call_impl

    def _setup_input_hook(self, state, input):
        positions = [i for i in range(len(input))
                     if isinstance(input[i], torch.Tensor) and input[i].requires_grad]
        if not positions or not torch.is_grad_enabled():
            return input
        state.input_positions = positions

        def on_grad_inputs(grads):
            full = [None] * state.n_inputs
            for k in range(len(positions)):
                full[positions[k]] = grads[k]
            new = state.call_hooks(tuple(full))
            return tuple([new[p] for p in positions])

        tensors = BackwardHookFunction.apply(on_grad_inputs, *[input[i] for i in positions])
        if not isinstance(tensors, tuple):
            tensors = (tensors,)
        new_input = list(input)
        for k in range(len(positions)):
            new_input[positions[k]] = tensors[k]
        return tuple(new_input)

    def _setup_output_hook(self, state, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        positions = [i for i in range(len(outputs))
                     if isinstance(outputs[i], torch.Tensor) and outputs[i].requires_grad]
        if not positions or not torch.is_grad_enabled():
            return result

        def on_grad_outputs(grads):
            full = [None] * len(outputs)
            for k in range(len(positions)):
                full[positions[k]] = grads[k]
            state.grad_outputs = tuple(full)
            if state.input_positions is None:
                # No input needs a gradient: the hooks run now, with None for each.
                state.call_hooks(tuple([None] * state.n_inputs))
            return grads

        tensors = BackwardHookFunction.apply(on_grad_outputs, *[outputs[i] for i in positions])
        if not isinstance(tensors, tuple):
            tensors = (tensors,)
        new_outputs = list(outputs)
        for k in range(len(positions)):
            new_outputs[positions[k]] = tensors[k]
        return new_outputs[0] if single else tuple(new_outputs)

    # ---- hooks --------------------------------------------------------------------------

    def register_forward_pre_hook(self, hook):
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        raise NotImplementedError(
            "Module.register_backward_hook is not supported by Chainrule (it is deprecated in "
            "PyTorch): use register_full_backward_hook")

    # ---- members ------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix='', recurse=True):
        memo = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                memo.add(v)
                yield module_prefix + ('.' if module_prefix else '') + k, v

    def parameters(self, recurse=True):
        for name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix='', recurse=True):
        gen = self._named_members(lambda module: module._parameters.items(),
                                  prefix=prefix, recurse=recurse)
        for elem in gen:
            yield elem

    def buffers(self, recurse=True):
        for name, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix='', recurse=True):
        gen = self._named_members(lambda module: module._buffers.items(),
                                  prefix=prefix, recurse=recurse)
        for elem in gen:
            yield elem

    def children(self):
        for name, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for name, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ('.' if prefix else '') + name
                for m in module.named_modules(memo, submodule_prefix, remove_duplicate):
                    yield m

    # ---- modes and gradients ------------------------------------------------------------

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- devices and dtypes -------------------------------------------------------------

    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        for key, param in list(self._parameters.items()):
            if param is None:
                continue
            with torch.no_grad():
                param_applied = fn(param)
            if param_applied is param:
                continue
            new_param = Parameter(param_applied, param.requires_grad)
            if param.grad is not None:
                with torch.no_grad():
                    new_param.grad = fn(param.grad)
            self._parameters[key] = new_param
        for key, buf in list(self._buffers.items()):
            if buf is not None:
                self._buffers[key] = fn(buf)
        # New tensors: named again (the outermost module's _apply runs last).
        for name, param in self.named_parameters():
            torch._C._set_name(param, name)
        return self

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda())

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def to(self, *args, **kwargs):
        device = kwargs.get('device', None)
        dtype = kwargs.get('dtype', None)
        for a in args:
            if isinstance(a, torch.Tensor):
                device = a.device
                dtype = a.dtype
            elif isinstance(a, torch.dtype):
                dtype = a
            else:
                device = a
        if dtype is not None and dtype not in (torch.float32, torch.float64, torch.float16):
            raise TypeError('nn.Module.to only accepts floating point or complex '
                            'dtypes, but got desired dtype={}'.format(dtype))

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if device is not None:
                t = t.to(device)
            return t
        return self._apply(convert)

    def share_memory(self):
        return self

    # ---- state_dict ---------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        if len(args) > 0:
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == '':
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = _new_ordered_dict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + '.',
                                  keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        local_state = {}
        for k, v in self._parameters.items():
            if v is not None:
                local_state[k] = v
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                local_state[k] = v
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, torch.Tensor):
                    error_msgs.append('While copying the parameter named "{}", '
                                      'expected torch.Tensor or Tensor-like object from checkpoint but '
                                      'received {}'.format(key, type(input_param)))
                    continue
                if len(param.shape) == 0 and len(input_param.shape) == 1:
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append('size mismatch for {}: copying a param with shape {} from checkpoint, '
                                      'the shape in current model is {}.'
                                      .format(key, input_param.shape, param.shape))
                    continue
                with torch.no_grad():
                    param.copy_(input_param)
            elif strict:
                missing_keys.append(key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split('.', 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        if not isinstance(state_dict, dict):
            raise TypeError("Expected state_dict to be dict-like, got {}.".format(type(state_dict)))
        missing_keys = []
        unexpected_keys = []
        error_msgs = []
        self._load_into(dict(state_dict), '', missing_keys, unexpected_keys, error_msgs)
        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, 'Unexpected key(s) in state_dict: {}. '.format(
                    ', '.join(['"{}"'.format(k) for k in unexpected_keys])))
            if len(missing_keys) > 0:
                error_msgs.insert(0, 'Missing key(s) in state_dict: {}. '.format(
                    ', '.join(['"{}"'.format(k) for k in missing_keys])))
        if len(error_msgs) > 0:
            raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def _load_into(self, local_state_dict, prefix, missing_keys, unexpected_keys, error_msgs):
        self._load_from_state_dict(local_state_dict, prefix, {}, True, missing_keys,
                                   unexpected_keys, error_msgs)
        for name, child in self._modules.items():
            if child is not None:
                child_prefix = prefix + name + '.'
                child_state_dict = {}
                for k, v in local_state_dict.items():
                    if k.startswith(child_prefix):
                        child_state_dict[k] = v
                child._load_into(child_state_dict, child_prefix, missing_keys, unexpected_keys,
                                 error_msgs)

    # ---- printing -----------------------------------------------------------------------

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ''

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split('\n')
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append('(' + key + '): ' + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + '('
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += '\n  ' + '\n  '.join(lines) + '\n'
        return main_str + ')'


def _name_parameters(owner, name):
    # The trace and the graph call a parameter by its named_parameters()
    # name within the outermost module it has been put in so far:
    # "weight", then "fc1.weight", then "encoder.fc1.weight".
    if isinstance(owner, Parameter):
        torch._C._set_name(owner, name)
    elif isinstance(owner, Module):
        for sub, param in owner.named_parameters():
            torch._C._set_name(param, name + '.' + sub)


def _new_ordered_dict():
    try:
        from collections import OrderedDict
    except ImportError:
        return {}
    return OrderedDict()
