# Writing your own autograd operation with torch.autograd.Function.
# forward computes the result and saves what backward needs with
# ctx.save_for_backward; backward receives dL/doutput and returns dL/dinput.
# The node shows up in the graph as MyReLUBackward.
import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


x = torch.tensor([-2.0, -0.5, 0.5, 1.0, 3.0], requires_grad=True)
y = MyReLU.apply(x)
print(y)   # the grad_fn is the class name + Backward

loss = (y * y).sum()
loss.backward()
print(x.grad)
