import torch
import torch.nn as nn
torch.manual_seed(0)
mods = [nn.GroupNorm(2, 4), nn.GroupNorm(1, 3, eps=1e-3, affine=False), nn.InstanceNorm1d(3), nn.InstanceNorm2d(2, affine=True, track_running_stats=True),
        nn.Dropout1d(0.2), nn.Dropout2d(), nn.ZeroPad2d(1), nn.ZeroPad2d((1, 0, 2, 3)), nn.ConstantPad1d(2, 3.5), nn.ConstantPad2d((1, 2, 0, 1), -1.0),
        nn.ReflectionPad1d(1), nn.ReflectionPad2d((1, 1, 2, 0)), nn.ReplicationPad1d((2, 1)), nn.ReplicationPad2d(1),
        nn.CosineSimilarity(), nn.CosineSimilarity(dim=0, eps=1e-6), nn.PairwiseDistance(), nn.PairwiseDistance(p=1.0, keepdim=True)]
for m in mods:
    print(m)
print(list(nn.GroupNorm(2, 4).state_dict().keys()), list(nn.InstanceNorm2d(2, affine=True, track_running_stats=True).state_dict().keys()))
x = torch.arange(24.0).reshape(2, 4, 3).sin()
print(nn.GroupNorm(2, 4)(x))
i1 = nn.InstanceNorm1d(4, affine=True, track_running_stats=True)
print(i1(x), i1.running_mean, i1.num_batches_tracked)
i1.eval(); print(i1(x)[0])
print(nn.InstanceNorm1d(4)(x)[1])
print(nn.Dropout2d(0.5)(torch.ones(2, 3, 2, 2)))
print(nn.ZeroPad2d((1, 0, 2, 3))(torch.ones(1, 1, 2, 2)))
print(nn.ReflectionPad2d(1)(torch.arange(9.).reshape(1, 1, 3, 3)))
print(nn.ReplicationPad1d((2, 1))(torch.arange(3.).reshape(1, 1, 3)))
print(nn.ConstantPad1d(2, 3.5)(torch.ones(1, 2)))
print(nn.CosineSimilarity()(x, x.flip(0)), nn.PairwiseDistance()(x[0], x[1]))
