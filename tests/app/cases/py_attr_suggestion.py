class Model:
    def __init__(self):
        self.weights = [1.0, 2.0]
    def forward(self):
        return self.weight
m = Model()
print(m.weights)
m.forward()
