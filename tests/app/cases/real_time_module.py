# tutorials time their training loops with time.time()
import time
since = time.time()
t0 = time.perf_counter()
elapsed = time.time() - since
print(elapsed >= 0, elapsed < 60, time.perf_counter() >= t0, type(time.monotonic()).__name__)
print(f'Training complete in {elapsed // 60:.0f}m {elapsed % 60:.0f}s')
