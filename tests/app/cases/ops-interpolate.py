import torch
import torch.nn.functional as F

torch.manual_seed(5)
img = torch.randn(1, 2, 3, 4, requires_grad=True)
up = F.interpolate(img, scale_factor=2)
print(up[0, 0])
g = up.grad_fn
print(g.name(), g._saved_input_sym_sizes, g._saved_output_size, g._saved_scale_factors)
for kw in [dict(size=(5, 7), mode='bilinear', align_corners=True),
           dict(size=(5, 7), mode='bilinear'),
           dict(scale_factor=1.5, mode='bilinear'),
           dict(scale_factor=(0.5, 1.75), mode='bilinear', align_corners=False),
           dict(scale_factor=1.5, mode='nearest'),
           dict(size=(2, 9)),
           dict(scale_factor=1.5, mode='nearest-exact')]:
    img.grad = None
    y = F.interpolate(img, **kw)
    (y * torch.arange(float(y.numel())).reshape(y.shape)).sum().backward()
    print(kw, y.grad_fn.name(), tuple(y.shape))
    print(y[0, 1], img.grad[0, 1], sep="\n")
    print(y.grad_fn._saved_output_size, y.grad_fn._saved_scale_factors,
          getattr(y.grad_fn, '_saved_align_corners', None))
# 1-d and 3-d, nn.Upsample and its reprs
seq = torch.arange(6.0).reshape(1, 2, 3).requires_grad_()
lin = F.interpolate(seq, size=5, mode='linear', align_corners=True)
print(lin, lin.grad_fn._saved_align_corners)
vol = torch.arange(8.0).reshape(1, 1, 2, 2, 2).requires_grad_()
tri = F.interpolate(vol, scale_factor=(1, 2, 1.5), mode='trilinear')
print(tri.shape, tri.grad_fn.name(), tri.grad_fn._saved_scale_factors)
tri.sum().backward()
print(vol.grad)
near3 = F.interpolate(vol, size=(3, 2, 4))
print(near3.grad_fn.name(), near3[0, 0, :, 1])
up = torch.nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
print(up, torch.nn.Upsample(size=(4, 4)), torch.nn.UpsamplingNearest2d(scale_factor=3),
      torch.nn.UpsamplingBilinear2d(size=6))
print(up(torch.arange(4.0).reshape(1, 1, 2, 2)))
print(torch.nn.UpsamplingBilinear2d(scale_factor=2)(torch.arange(4.0).reshape(1, 1, 2, 2)))
# second derivative: the backward's own node
a = torch.randn(1, 1, 2, 3, dtype=torch.float64, requires_grad=True)
ga, = torch.autograd.grad(F.interpolate(a, scale_factor=2, mode='bilinear').pow(2).sum(), a,
                          create_graph=True)
print(ga.grad_fn.name(), ga.grad_fn._saved_scale_factors, ga.grad_fn._saved_output_size,
      ga.grad_fn._saved_align_corners, ga.grad_fn.next_functions[0][0].name())
print(torch.autograd.grad(ga.sum(), a)[0])
for bad in [lambda: F.interpolate(torch.randn(2, 3), scale_factor=2),
            lambda: F.interpolate(torch.randn(1, 2, 3), scale_factor=2, mode='bilinear'),
            lambda: F.interpolate(torch.randn(1, 2, 3), size=4, scale_factor=2),
            lambda: F.interpolate(torch.randn(1, 2, 3), size=4, align_corners=True),
            lambda: F.interpolate(torch.randn(1, 2, 3, 3), size=(4,)),
            lambda: F.interpolate(torch.randn(1, 2, 3))]:
    try:
        bad()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__, e)
F.interpolate(torch.randn(1, 2, 3, 3), scale_factor=0.1)
