# mse_loss, smooth_l1_loss and huber_loss: the gradient of their gradient
# goes through MseLossBackwardBackward0, SmoothL1LossBackwardBackward0 and
# HuberLossBackwardBackward0 (the target's through NegBackward0 of it), in
# the input, the target and the incoming gradient, for every reduction.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.2, -1.5, 3.0], [0.9, 0.0, -0.4]], requires_grad=True)
t = torch.tensor([[0.0, 0.5, 1.0], [1.0, -0.2, -0.15]], requires_grad=True)
w = torch.tensor([[1.0, -2.0, 0.5], [3.0, 1.5, -1.0]])
losses = [("mse", lambda a, b, r: F.mse_loss(a, b, reduction=r)),
          ("smooth_l1", lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.8)),
          ("smooth_l1_b0", lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.0)),
          ("huber", lambda a, b, r: F.huber_loss(a, b, reduction=r, delta=1.2))]
for name, f in losses:
    for red in ["mean", "sum", "none"]:
        l = f(x, t, red)
        v = torch.ones_like(l).mul(0.5).requires_grad_()
        gx, gt = torch.autograd.grad(l, (x, t), v, create_graph=True)
        print(name, red, gx.grad_fn.name(), gt.grad_fn.name(),
              [type(n).__name__ for n, _ in gx.grad_fn.next_functions])
        print(gx)
        print(torch.autograd.grad((gx * w).sum() + (gt * gt).sum(), (x, t, v)))
