"""Every ratio of the benchmarks, before and after a change, in one run.

    python bench/before_after.py 6bcfe93             # that commit against the work tree
    python bench/before_after.py 6bcfe93 --rounds 3 --bench bench_engine.py
    python bench/before_after.py 6bcfe93 --same-bench   # today's benchmarks on both packages

The package and the benchmarks at the given commit are unpacked into a temporary folder
(``git archive``); then each benchmark script runs from both trees in turns (before,
after, after, before, ...), each run a process of its own on its own tree's package.
A benchmark prints ratios against a baseline measured in its own run (hand-written
NumPy, PyTorch); this script gathers every ratio a line prints, by the line's label,
and prints the median of the rounds before and after, and their quotient: above 1.05,
the change made that ratio more than 5% worse.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIO = re.compile(r"(\d+\.\d+)x")


def unpack(commit, into):
    archive = subprocess.run(["git", "archive", commit, "autograd_lab", "bench"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    path = Path(into) / "tree.tar"
    path.write_bytes(archive)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    return Path(into)


def ratios(output):
    """{label: first ratio on its line} for every line that prints a ratio.  The label is
    the line's text before its first number, with the section's number in front (the
    same words can appear in two sections)."""
    found, section = {}, ""
    for line in output.splitlines():
        head = re.match(r"^(\d+)\. ", line)
        if head:
            section = head.group(1)
        m = RATIO.search(line)
        if m and not line.lstrip().startswith("goal"):
            label = re.split(r"\d", line.strip(), maxsplit=1)[0].strip(" :/=(")
            key = f"{section}. {label}"
            while key in found:
                key += "'"
            found[key] = float(m.group(1))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the commit to compare the work tree with")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each tree per benchmark")
    parser.add_argument("--bench", action="append", help="a script in bench/ (default: engine, jacobian)")
    parser.add_argument("--same-bench", action="store_true",
                        help="run the work tree's benchmark scripts on both packages (when a "
                             "benchmark changed since the commit)")
    args = parser.parse_args()
    scripts = args.bench or ["bench_engine.py", "bench_jacobian.py"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": unpack(args.commit, tmp), "after": ROOT}
        if args.same_bench:
            shutil.rmtree(trees["before"] / "bench")
            shutil.copytree(ROOT / "bench", trees["before"] / "bench",
                            ignore=shutil.ignore_patterns("__pycache__"))
        for script in scripts:
            runs = {"before": [], "after": []}
            for r in range(args.rounds):
                for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
                    print(f"[{script}: round {r + 1}, {name}]", file=sys.stderr, flush=True)
                    out = subprocess.run([sys.executable, str(trees[name] / "bench" / script)],
                                         capture_output=True, text=True, env=env, check=True).stdout
                    runs[name].append(ratios(out))
            print(f"\n{script} ({args.rounds} round(s) each; median ratio before and after)")
            for label in runs["after"][0]:
                before = [r[label] for r in runs["before"] if label in r]
                after = [r[label] for r in runs["after"] if label in r]
                if not before:
                    continue
                b, a = statistics.median(before), statistics.median(after)
                worse = "  <- more than 5% worse" if a / b > 1.05 else ""
                print(f"   {label[:60]:60s} {b:7.3f}x -> {a:7.3f}x  ({a / b:5.3f}){worse}")


if __name__ == "__main__":
    main()
