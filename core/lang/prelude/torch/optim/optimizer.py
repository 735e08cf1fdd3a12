# torch.optim.Optimizer as PyTorch 1.13 writes it: param_groups (dicts holding
# the group's params and every option, in the order the optimizer's defaults
# name them), per-parameter state keyed by the tensor, zero_grad with 1.13's
# default set_to_none=False, state_dict/load_state_dict in memory.
import torch


class _RequiredParameter(object):
    """Singleton class representing a required parameter for an Optimizer."""
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _deepcopy(value):
    # What load_state_dict's copy.deepcopy does to a state dict: containers
    # and tensors are new, everything else is immutable.
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {k: _deepcopy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deepcopy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_deepcopy(v) for v in value)
    return value


def _typename(o):
    # torch.typename: what an error message calls a value.
    if isinstance(o, torch.Tensor):
        return o.type()
    module = getattr(o, '__module__', None)
    prefix = module + '.' if module is not None and module != 'builtins' else ''
    return prefix + type(o).__name__


def _cast(param, value, key=None):
    # load_state_dict's copy of a state value: tensors to param's device, and
    # to its dtype when floating, except the step counts.
    if isinstance(value, torch.Tensor):
        if key != "step":
            if param.is_floating_point():
                value = value.to(param.dtype)
            value = value.to(param.device)
        return value
    elif isinstance(value, dict):
        return {k: _cast(param, v, key=k) for k, v in value.items()}
    elif isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    else:
        return value


_HYPERPARAMETER_LABELS = {'lr': 'learning rate', 'eps': 'epsilon value'}


def _check_hyperparameters(**values):
    # The constructors' range checks, in the order each constructor lists them,
    # with 1.13's messages: betas each in [0, 1), rho in [0, 1], the others >= 0
    # (written `not 0.0 <= v` as PyTorch does, so NaN is refused too).
    for name, value in values.items():
        if name == 'betas':
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError("Invalid beta parameter at index {}: {}".format(i, value[i]))
        elif not (0.0 <= value <= 1.0 if name == 'rho' else 0.0 <= value):
            label = _HYPERPARAMETER_LABELS.get(name, name + ' value')
            raise ValueError("Invalid {}: {}".format(label, value))


class _StateDict(dict):
    # Optimizer.state: PyTorch's defaultdict(dict), keyed by parameter.
    def __missing__(self, key):
        value = {}
        self[key] = value
        return value

    def __repr__(self):
        return "defaultdict(<class 'dict'>, " + repr(dict(self)) + ")"


class Optimizer(object):
    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, torch.Tensor):
            raise TypeError("params argument given to the optimizer should be "
                            "an iterable of Tensors or dicts, but got " +
                            _typename(params))
        self.state = _StateDict()
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self):
        format_string = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            format_string += '\n'
            format_string += 'Parameter Group {0}\n'.format(i)
            for key in sorted(group.keys()):
                if key != 'params':
                    format_string += '    {0}: {1}\n'.format(key, group[key])
        format_string += ')'
        return format_string

    # What a subclass's __setstate__ adds to groups loaded from an older dict.
    _group_defaults = {}

    def _set_group_defaults(self):
        for group in self.param_groups:
            for name, value in self._group_defaults.items():
                group.setdefault(name, value)

    def _step_each(self, closure, grad_enabled=False):
        # The loop of 1.13's single-tensor optimizers: the closure under
        # enable_grad, then each parameter that has a gradient, its state made on
        # first use by the subclass's _init_state and updated by its _update.
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        # A recorded run's record holds each parameter's update (its value,
        # gradient and state before and after): the training view's numbers.
        recording = torch._C._recording()
        if recording:
            torch._C._record_step(self)
        with torch.set_grad_enabled(grad_enabled):
            for index, group in enumerate(self.param_groups):
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        self._init_state(group, param, state)
                    if recording:
                        torch._C._record_update(index, group, param, state, False)
                    self._update(group, param, state)
                    if recording:
                        torch._C._record_update(index, group, param, state, True)
        return loss

    def _init_state(self, group, param, state):
        pass

    @staticmethod
    def _grad_of(group, param):
        # maximize follows the negated gradient.
        return -param.grad if group.get('maximize', False) else param.grad

    def state_dict(self):
        param_mappings = {}
        param_groups = []
        start_index = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != 'params'}
            index = start_index
            for p in group['params']:
                if p not in param_mappings:
                    param_mappings[p] = index
                index += 1
            packed['params'] = [param_mappings[p] for p in group['params']]
            start_index += len(packed['params'])
            param_groups.append(packed)
        packed_state = {(param_mappings[k] if isinstance(k, torch.Tensor) else k): v
                        for k, v in self.state.items()}
        return {
            'state': packed_state,
            'param_groups': param_groups,
        }

    def load_state_dict(self, state_dict):
        state_dict = _deepcopy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict['param_groups']
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of "
                             "parameter groups")
        for g, s in zip(groups, saved_groups):
            if len(g['params']) != len(s['params']):
                raise ValueError("loaded state dict contains a parameter group "
                                 "that doesn't match the size of optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for old_id, p in zip(s['params'], g['params']):
                id_map[old_id] = p


        state = _StateDict()
        for k, v in state_dict['state'].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v
        param_groups = []
        for g, ng in zip(groups, saved_groups):
            ng['params'] = g['params']
            param_groups.append(ng)
        self.state = state
        self.param_groups = param_groups
        if 'differentiable' not in self.defaults:
            self.defaults['differentiable'] = False
        self._set_group_defaults()

    def zero_grad(self, set_to_none=False):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure):
        raise NotImplementedError

    def add_param_group(self, param_group):
        assert isinstance(param_group, dict), "param group must be a dict"
        params = param_group['params']
        if isinstance(params, torch.Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError('optimizer parameters need to be organized in ordered collections, but '
                            'the ordering of tensors in sets will change between runs. Please use a list instead.')
        else:
            param_group['params'] = list(params)
        for param in param_group['params']:
            if not isinstance(param, torch.Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(param))
            if not self.defaults.get('differentiable', None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " +
                                 name)
            else:
                param_group.setdefault(name, default)
        params = param_group['params']
        if len(params) != len(set(params)):
            torch._C._warn("optimizer contains a parameter group with duplicate parameters; "
                           "in future, this will cause an error; "
                           "see github.com/pytorch/pytorch/issues/40967 for more information")
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group['params']))
        for param in param_group['params']:
            if param in param_set:
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
