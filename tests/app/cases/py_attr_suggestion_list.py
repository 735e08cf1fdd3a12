history = []
history.append(1.5)
print(history)
history.apend(2.5)
