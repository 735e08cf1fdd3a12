import torch
import torch.nn.functional as F


def err(f):
    try:
        r = f()
        print('ok', tuple(r.shape), r.dtype)
    except Exception as e:
        print(type(e).__name__, e)


x = torch.arange(24.0).reshape(2, 3, 4)
err(lambda: F.layer_norm(x, (3,)))
err(lambda: F.layer_norm(x, (2, 3, 4, 5)))
err(lambda: F.layer_norm(x, 4))
err(lambda: F.layer_norm(x, [4], torch.ones(3)))
err(lambda: F.layer_norm(x, [4], None, torch.ones(3)))
err(lambda: F.layer_norm(x, ()))
err(lambda: F.layer_norm(torch.ones(2, 4, dtype=torch.long), (4,)))
err(lambda: F.layer_norm(x, (4,), torch.ones(4, dtype=torch.double)))
err(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3)))
err(lambda: F.batch_norm(x, torch.zeros(4), torch.ones(4)))
err(lambda: F.batch_norm(torch.ones(1, 3), torch.zeros(3), torch.ones(3), training=True))
err(lambda: F.batch_norm(torch.ones(1, 3), None, None, training=True))
err(lambda: F.batch_norm(torch.ones(2, 3), None, None, training=False))
err(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(4)))
err(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3), training=True, momentum=None))
err(lambda: F.batch_norm(torch.ones(2, 3, dtype=torch.long), torch.zeros(3), torch.ones(3)))
f3 = torch.ones(3)
d3 = torch.ones(3, dtype=torch.double)
y = torch.ones(4, 3)
err(lambda: F.batch_norm(y.double(), f3, f3))
err(lambda: F.batch_norm(y, d3, d3))
err(lambda: F.batch_norm(y, f3, f3, d3))
err(lambda: F.batch_norm(y.double(), d3, d3, f3))
err(lambda: F.batch_norm(y.double(), d3, d3, d3))
g = torch.arange(24.0).reshape(2, 4, 3)
err(lambda: F.group_norm(g, 3))
err(lambda: F.group_norm(g, 2, torch.ones(3)))
err(lambda: F.group_norm(g, 2, None, torch.ones(3)))
err(lambda: F.group_norm(g, 2, torch.ones(5), torch.ones(4)))
err(lambda: F.group_norm(g, 2, torch.ones(4, dtype=torch.double)))
err(lambda: F.group_norm(torch.ones(2, 4), 2))
err(lambda: F.instance_norm(torch.ones(1, 3)))
err(lambda: F.instance_norm(torch.ones(2, 3, 1)))
err(lambda: F.instance_norm(torch.ones(2, 3, 2), use_input_stats=False))
err(lambda: F.instance_norm(torch.ones(2, 3, 2), torch.zeros(3), torch.ones(3), use_input_stats=False))
