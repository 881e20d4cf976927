#!/usr/bin/env python3
"""Prints bench/python's table from a run's directory (run.sh writes it):
env.json, and per round N c-N.json (append_bench), py-N.json (append_py.py)
and their .load files. Also writes DIR/results.json.

Exits 0 (a missed target is reported, not failed), 1 when the two sides did
not write the same Parquet bytes in a round (then they did not append the
same rows, and the ratio does not measure the binding), 5 when a result is
missing or unreadable."""

import json
import os
import statistics
import sys

PYHOGLAKE_ROWS_S = 202_000  # pyhoglake's published append rate
TARGET_VS_C = 0.9
TARGET_VS_PYHOGLAKE = 9.0


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"report.py: {path}: {e}", file=sys.stderr)
        sys.exit(5)


def one_min_load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError) as e:
        print(f"report.py: {path}: {e}", file=sys.stderr)
        sys.exit(5)


def side(runs, rows):
    """Per-round figures of one side: [{wall_s, rows_s, cpu_per_m, load}]."""
    return [{"wall_s": r["append_s"], "rows_s": rows / r["append_s"],
             "cpu_per_m": r["append_cpu_s"] * 1e6 / rows, "load": r["load"]} for r in runs]


def span(values, fmt):
    return f"{fmt.format(min(values))}-{fmt.format(max(values))}"


def verdict(values, target):
    if min(values) >= target:
        return "met"
    return "missed in some rounds" if max(values) >= target else "missed"


def main():
    d = sys.argv[1]
    env = load_json(os.path.join(d, "env.json"))
    rows, rounds = env["rows"], env["rounds"]
    c_runs, py_runs = [], []
    for n in range(1, rounds + 1):
        c = load_json(os.path.join(d, f"c-{n}.json"))
        py = load_json(os.path.join(d, f"py-{n}.json"))
        for res, runs, name in ((c, c_runs, "c"), (py, py_runs, "py")):
            if (res["rows"], res["batch_rows"]) != (rows, env["batch_rows"]):
                print(f"report.py: {name}-{n} appended {res['rows']} rows in batches of "
                      f"{res['batch_rows']}, not {rows} in {env['batch_rows']}", file=sys.stderr)
                sys.exit(5)
            run = dict(res["runs"][0], load=one_min_load(os.path.join(d, f"{name}-{n}.load")))
            runs.append(run)
    sizes = {(c["file_bytes"], p["file_bytes"]) for c, p in zip(c_runs, py_runs)}
    if any(cb != pb for cb, pb in sizes):
        print(f"report.py: the sides wrote different Parquet sizes (C, Python): {sorted(sizes)}",
              file=sys.stderr)
        sys.exit(1)
    c, py = side(c_runs, rows), side(py_runs, rows)
    vs_c = [p["rows_s"] / q["rows_s"] for p, q in zip(py, c)]
    # By CPU time: what the wall ratio would be without the other load.
    vs_c_cpu = [q["cpu_per_m"] / p["cpu_per_m"] for p, q in zip(py, c)]
    vs_pyhoglake = [p["rows_s"] / PYHOGLAKE_ROWS_S for p in py]

    print(f"# bench/python: {rows:,} rows of the event table, batches of {env['batch_rows']:,}, "
          f"to file://, {rounds} round(s)")
    print(f"\n{env['cpu']}, {env['nproc']} CPUs, Python {env['python']}"
          + (" (smoke: no timing is judged)" if env["smoke"] else ""))
    print("\nRanges are min-max over the rounds; each round runs both sides as fresh processes, "
          "the first alternating.\n")
    print("| side | wall s | rows/s | CPU s per 1M rows | load (1 min) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, s in (("C API (append_bench)", c), ("Python extension", py)):
        print(f"| {name} | {span([r['wall_s'] for r in s], '{:.3f}')} "
              f"| {span([r['rows_s'] for r in s], '{:,.0f}')} "
              f"| {span([r['cpu_per_m'] for r in s], '{:.3f}')} "
              f"| {span([r['load'] for r in s], '{:.2f}')} |")
    print(f"\nEach append wrote {span([cb for cb, _ in sizes], '{:,}')} bytes of Parquet on both "
          "sides: the same rows, so the same encoding work.")
    print(f"\n- Python / C by rows/s, per round: {span(vs_c, '{:.3f}')}x "
          f"(median {statistics.median(vs_c):.3f}x); target >= {TARGET_VS_C}x: "
          f"{verdict(vs_c, TARGET_VS_C)}")
    print(f"- Python / C by CPU time, per round: {span(vs_c_cpu, '{:.3f}')}x "
          f"(median {statistics.median(vs_c_cpu):.3f}x)")
    print(f"- Python / pyhoglake's 202K rows/s: {span(vs_pyhoglake, '{:.1f}')}x; "
          f"target >= {TARGET_VS_PYHOGLAKE:.0f}x: {verdict(vs_pyhoglake, TARGET_VS_PYHOGLAKE)}")
    with open(os.path.join(d, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"env": env, "c": c, "python": py, "python_vs_c": vs_c, "python_vs_c_cpu": vs_c_cpu,
                   "python_vs_pyhoglake": vs_pyhoglake}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
