for i in range(2):
	if i:
        print(i)
