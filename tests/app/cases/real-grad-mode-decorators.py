import torch
x = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)

@torch.inference_mode()
def infer(t):
    return t * 2

class M:
    @torch.enable_grad()
    def f(self, t):
        return t * 3
    @torch.inference_mode()
    def g(self, t):
        return t + 1

r = infer(x)
print(r, r.requires_grad)
with torch.no_grad():
    print(M().f(x).grad_fn, M().g(x))
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
print(torch.where(x > 0, x, 0.0))
print(torch.argsort(x, dim=1, descending=True), x.topk(1, dim=0))
y = x.detach().clone()
y.masked_fill_(y < 0, 0.0)
print(y, torch.nn.functional.pad(y, (1, 0), value=9))
print(x.T @ x, torch.einsum('ij,ij->i', x, x))
