# Why a second backward needs retain_graph=True.
# backward() frees the tensors the graph saved (here a and w1 for MulBackward0),
# so a second backward on the same graph raises "Trying to backward through the
# graph a second time". Keep the graph with retain_graph=True; gradients add up.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w1 = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
L = (w1 * a).sum()

L.backward(retain_graph=True)
print(w1.grad)
L.backward()            # allowed: the first call kept the graph
print(w1.grad)          # accumulated: twice a
# A third L.backward() would fail now: the second call freed the graph.

# A new forward pass builds a new graph, which can be backpropagated again.
w1.grad.zero_()
L = (w1 * a).sum()
L.backward()
print(w1.grad)
