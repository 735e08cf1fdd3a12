# An instance's __dict__ is its namespace: changes through it (update, item
# assignment, del) are the instance's attributes, as lr_scheduler's
# load_state_dict relies on.
class Sched:
    def __init__(self):
        self.last_epoch = 0
        self.base_lrs = [0.1]
    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != 'optimizer'}
    def load_state_dict(self, sd):
        self.__dict__.update(sd)
a = Sched()
a.last_epoch = 5
sd = a.state_dict()
b = Sched()
b.load_state_dict(sd)
print(b.last_epoch, b.base_lrs, vars(b))
b.__dict__['extra'] = 3
print(b.extra, hasattr(b, 'extra'), b.__dict__ is b.__dict__)
b.last_epoch = 7
print(b.__dict__['last_epoch'], vars(b))
del b.extra
print(hasattr(b, 'extra'), b.__dict__)
del b.__dict__['base_lrs']
print(hasattr(b, 'base_lrs'))
