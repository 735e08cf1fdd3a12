import torch
torch.manual_seed(7)
s = torch.get_rng_state()
print(s.dtype, s.shape, s[:4], s.type())
a = torch.randn(3)
torch.set_rng_state(s)
print(torch.equal(a, torch.randn(3)))
g = torch.Generator().manual_seed(5)
gs = g.get_state()
b = torch.rand(2, generator=g)
g.set_state(gs)
print(gs.dtype, torch.equal(b, torch.rand(2, generator=g)))
for f in [lambda: torch.set_rng_state(5), lambda: torch.Generator().set_state(5),
          lambda: torch.Generator().set_state(torch.zeros(3)),
          lambda: torch.set_rng_state(s.long()),
          lambda: torch.set_rng_state(torch.zeros(3, dtype=torch.uint8, device='cpu'))]:
    try:
        f()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
