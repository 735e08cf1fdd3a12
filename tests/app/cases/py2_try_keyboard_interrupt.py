try:
    raise KeyboardInterrupt
except Exception:
    print("no")
