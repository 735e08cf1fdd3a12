# torch.optim.LBFGS with a closure: plain steps, the strong-Wolfe line search,
# a short history; losses, parameters and the state's counters as PyTorch 1.13.
import torch
torch.manual_seed(0)
A = torch.randn(6, 4, dtype=torch.float64)
b = torch.randn(6, dtype=torch.float64)
for kw in [dict(), dict(line_search_fn="strong_wolfe"), dict(lr=0.5, history_size=3, max_iter=5)]:
    x = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        loss = ((A @ x - b) ** 2).sum() + (x ** 4).sum()
        loss.backward()
        return loss

    for i in range(3):
        loss = opt.step(closure)
        print(i, round(loss.item(), 10), [round(v, 8) for v in x.tolist()])
    st = opt.state[x]
    print(st['func_evals'], st['n_iter'], len(st['old_dirs']))
print(opt)
