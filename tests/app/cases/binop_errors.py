# Binary rows: PyTorch's errors for dtypes, numbers and in-place casts
# cuda: cpu-only, the errors name the CPU kernels ("hypot_cpu")
import torch

a = torch.tensor([1.5, -2.0, 0.5])
i = torch.tensor([3, -2, 4])
m = torch.tensor([True, False, True])

def attempt(label, f):
    try:
        r = f()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e).split("\n")[0])

attempt("hypot int", lambda: torch.hypot(i, i))
attempt("hypot bool", lambda: torch.hypot(m, m))
attempt("logaddexp int", lambda: torch.logaddexp(i, i))
attempt("logaddexp2 bool", lambda: torch.logaddexp2(m, m))
attempt("fmod bool", lambda: torch.fmod(m, m))
attempt("remainder bool", lambda: torch.remainder(m, m))
attempt("fmod int zero", lambda: torch.fmod(i, torch.tensor([1, 0, 2])))
attempt("remainder int zero", lambda: torch.remainder(i, 0))
attempt("atan2 number", lambda: torch.atan2(a, 2))
attempt("hypot number", lambda: torch.hypot(a, 2.0))
attempt("fmax number", lambda: torch.fmax(a, 1))
attempt("maximum number", lambda: torch.maximum(a, 1))
attempt("atan2 first number", lambda: torch.atan2(2, a))
attempt("atan2_ int", lambda: i.clone().atan2_(a))
attempt("fmod_ int", lambda: i.clone().fmod_(a))
attempt("xlogy_ int", lambda: i.clone().xlogy_(2))
attempt("shape", lambda: torch.atan2(a, torch.ones(2)))
attempt("leaf", lambda: torch.ones(3, requires_grad=True).hypot_(a))
print(hasattr(a, "logaddexp_"), hasattr(a, "fmax_"), hasattr(a, "atan2_"), hasattr(torch, "arctan2"))
