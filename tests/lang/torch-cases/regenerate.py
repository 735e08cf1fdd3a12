#!/usr/bin/python3
"""Regenerate the expected outputs of the torch-layer cases with PyTorch 1.13.

For each NAME.py here: NAME.out is what `/usr/bin/python3 NAME.py` printed on
stdout, NAME.err the last line of its stderr when it failed (empty when it
succeeded). A few cases differ from this CPU-only PyTorch on purpose (see
OVERRIDE). NAME.stderr, written by hand, holds a line that must appear in
Chainrule's stderr (warnings).

usage: /usr/bin/python3 regenerate.py
"""
import glob
import os
import subprocess

# Where Chainrule deliberately differs from the CPU-only PyTorch build.
OVERRIDE = {
    # Chainrule has no half floats; torch.float16 is refused rather than mapped.
    "err_float16": "TypeError: dtype torch.float16 is not supported by Chainrule",
    # Scripts are sandboxed: no module outside torch.
    "err_import": "ModuleNotFoundError: No module named 'os'",
    # What PyTorch has and Chainrule lacks says so (cr-torch-missing.c).
    "err_missing_module": "NotImplementedError: torch.fft is not supported by Chainrule yet",
    "err_missing_from_import": "NotImplementedError: torch.nanmedian is not supported by Chainrule yet",
    "err_missing_method": "NotImplementedError: Tensor.nanmedian is not supported by Chainrule yet",
    "err_missing_submodule_import": "NotImplementedError: torch.special is not supported by Chainrule yet",
}

here = os.path.dirname(os.path.abspath(__file__))
for path in sorted(glob.glob(os.path.join(here, "*.py"))):
    name = os.path.basename(path)[:-3]
    if name == "regenerate":
        continue
    proc = subprocess.run(["/usr/bin/python3", path], capture_output=True, text=True, cwd=here)
    err = ""
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.split("\n") if line.strip()]
        err = lines[-1] if lines else ""
    err = OVERRIDE.get(name, err)
    with open(os.path.join(here, name + ".out"), "w") as f:
        f.write(proc.stdout)
    with open(os.path.join(here, name + ".err"), "w") as f:
        f.write(err + "\n" if err else "")
