# NameError gets Python 3.11's "Did you mean" from the frame's locals, the globals, then the builtins.
learning_rate = 0.1
def train(steps):
    total_loss = 0.0
    for step in range(steps):
        total_loss += learning_rate
    return total_los
print(train(1) if False else 'start')
train(3)
