"""How much `import toolcall_lab` costs above a bare interpreter, and what it pulls in.

    .venv/bin/python benchmarks/import_time.py [--runs 15]

Each measurement starts a fresh interpreter (`python -c pass` against
`python -c "import toolcall_lab"`), alternating the two so machine noise hits both, and
prints the medians, their difference in milliseconds, and the ratio. The goal is a
difference of at most 100 ms; for scale it also times `import anthropic` once.
No assertion here: shared machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ["anthropic", "openai", "httpx", "httpx2", "matplotlib", "ipywidgets", "IPython", "jsonschema"]


def wall_ms(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    wall_ms("import toolcall_lab")  # warm the file cache and write .pyc files first
    bare, kit = [], []
    for _ in range(runs):
        bare.append(wall_ms("pass"))
        kit.append(wall_ms("import toolcall_lab"))
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, toolcall_lab; print(' '.join(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True).stdout.split()
    pulled = [m for m in HEAVY if m in loaded]
    b, k = statistics.median(bare), statistics.median(kit)
    print(f"bare interpreter       median {b:7.1f} ms  ({runs} runs)")
    print(f"import toolcall_lab    median {k:7.1f} ms")
    print(f"cost of the import            {k - b:7.1f} ms  (goal: <= 100 ms)  ratio {k / b:.2f}x")
    print(f"heavy modules loaded: {', '.join(pulled) if pulled else 'none'} (checked: {', '.join(HEAVY)})")
    try:
        sdk = wall_ms("import anthropic")
        print(f"for scale: import anthropic   {sdk - b:7.1f} ms above bare (one run)")
    except subprocess.CalledProcessError:
        print("for scale: anthropic is not installed here")


if __name__ == "__main__":
    main()
