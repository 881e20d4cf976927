"""The scale benchmark's report (markdown on stdout) from DIR's results.

usage: report.py DIR SCALE...

Reads, per scale, DIR/s<scale>/{build.json,size.json,probes.jsonl,
explain.tsv,commits.jsonl,pgbench_tps} and DIR/results.tsv, and judges
issue 21's targets where the catalog is big enough for them to apply.
"""
import json
import os
import sys

# Public hoglake's sizing: 60-80 GB for ~8M file rows and ~400M stats rows.
PUBLIC_STATS_ROW_BYTES = (60e9 / 400e6, 80e9 / 400e6)
# Half the public figure for a file with 20 columns of statistics, taking
# only its stats rows at the low end (its file row would only raise it).
SIZE_TARGET_BYTES = PUBLIC_STATS_ROW_BYTES[0] * 20 / 2

# op: (p99 ms at most, what the target is about, whether this catalog is that)
LATENCY_TARGETS = {
    "scan_day": (50.0, "a table of >= 1M files", lambda size: size.get("t000_files", 0) >= 1000000),
    "list_wide_54k": (40.0, "a namespace of >= 54,000 tables",
                      lambda size: size.get("wide_tables", 0) >= 54000),
    # The public figure is 1.6 s warm over 45M rows (its file rows joined
    # with statistics); ours reads the published partition summary.
    "stats_partitions": (160.0, "the 1x catalog (10M files)",
                         lambda size: size.get("files", 0) >= 9000000),
}


def load_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def load_lines(path):
    try:
        with open(path) as f:
            return [json.loads(l) for l in f if l.strip()]
    except OSError:
        return []


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    d = sys.argv[1]
    scales = sys.argv[2:]
    out = ["# bench/scale report", ""]
    targets = []
    for s in scales:
        sd = os.path.join(d, "s" + s.replace(".", "_"))
        build = load_json(os.path.join(sd, "build.json"), {})
        size = load_json(os.path.join(sd, "size.json"), {})
        probes = load_lines(os.path.join(sd, "probes.jsonl"))
        commits = {c.get("label"): c for c in load_lines(os.path.join(sd, "commits.jsonl"))}
        files = size.get("files", 0)
        out += ["## Scale %s: %s data files, %s snapshots, %s statistics rows" % (
            s, format(files, ","), format(size.get("snapshots", 0), ","),
            format(size.get("stats_rows", 0), ",")), ""]
        if build:
            out.append("Build (this run): %s commits in %.0f s = %.0f commits/s, %.0f files/s "
                       "(%d writers, %d files per commit); %d wide tables in %.0f s." % (
                           format(build.get("commits_this_run", 0), ","),
                           build.get("commit_seconds", 0), build.get("commits_per_s", 0),
                           build.get("files_per_s", 0), build.get("writers", 0),
                           build.get("files_per_commit", 0), build.get("wide_tables", 0),
                           build.get("wide_seconds", 0)))
            out.append("")
        if size.get("files"):
            per_file = size["bytes_per_file_with_stats"]
            out += [
                "| PostgreSQL size | bytes |",
                "|---|---:|",
                "| database | %s |" % format(size["database_bytes"], ","),
                "| per file row (hog_data_file with its statistics + partition values, "
                "with indexes) | %.0f |" % size["bytes_per_file_row"],
                "| of which statistics, per column (hog_data_file.column_stats / 20) | %.1f |" %
                (size["bytes_per_stats_row"] or 0),
                "| per file with 20 columns of statistics | %.0f |" % per_file,
                "| public hoglake per statistics row (60-80 GB / 400M) | %.0f-%.0f |" %
                PUBLIC_STATS_ROW_BYTES, ""]
            targets.append("- scale %s: bytes per file with 20 columns of statistics %.0f <= %.0f "
                           "(half the public's): %s" % (s, per_file, SIZE_TARGET_BYTES,
                                                       verdict(per_file <= SIZE_TARGET_BYTES)))
        out += ["| operation | ops | p50 ms | p90 ms | p99 ms | max ms | pages/op | bytes/op |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for p in probes:
            out.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.1f | %s |" % (
                p["label"], p["ops"], p["p50_ms"], p["p90_ms"], p["p99_ms"], p["max_ms"],
                p["pages_per_op"], format(int(p["bytes_per_op"]), ",")))
            if p["label"] in LATENCY_TARGETS:
                limit, about, applies = LATENCY_TARGETS[p["label"]]
                judged = verdict(p["p99_ms"] <= limit) if applies(size) else \
                    "not judged: the target is for " + about
                targets.append("- scale %s: %s p99 %.2f ms <= %.0f ms: %s" % (
                    s, p["label"], p["p99_ms"], limit, judged))
        out.append("")
        try:
            with open(os.path.join(d, "results.tsv")) as f:
                rows = [l.rstrip("\n").split("\t") for l in f][1:]
            extra = [r for r in rows if r[0] == s]
            if extra:
                out += ["Server RSS and buffer hit ratio after each: " + "; ".join(
                    "%s %s MB, %s" % (r[3], int(r[10]) // 1024 if r[10].isdigit() else "?", r[11])
                    for r in extra), ""]
        except OSError:
            pass
        try:
            with open(os.path.join(sd, "explain.tsv")) as f:
                plans = [l.rstrip("\n").split("\t") for l in f if l.strip()]
            out += ["| operation (EXPLAIN ANALYZE pass) | slowest statement ms | "
                    "sequential scans over 10,000 rows |", "|---|---:|---|"]
            out += ["| %s | %s | %s |" % tuple(p[:3]) for p in plans]
            out.append("")
        except OSError:
            pass
        if commits:
            tps = None
            try:
                with open(os.path.join(sd, "pgbench_tps")) as f:
                    tps = float(f.read().strip() or 0) or None
            except (OSError, ValueError):
                pass
            out += ["| commits | writers | files/commit | commits/s | p50 ms | p99 ms |",
                    "|---|---:|---:|---:|---:|---:|"]
            for label, c in sorted(commits.items()):
                parts = label.split("_")
                out.append("| %s | %s | %s | %.0f | %.2f | %.2f |" % (
                    parts[1], parts[2][1:], parts[3][1:], c.get("commits_per_s", 0),
                    c.get("p50_ms", 0), c.get("p99_ms", 0)))
            if tps:
                out.append("| pgbench TPC-B (scale 1) | 8 | | %.0f | | |" % tps)
            out.append("")
            empty, big = commits.get("commit_empty_w1_f1"), commits.get("commit_lake_w1_f1")
            if empty and big and empty.get("p50_ms"):
                r = big["p50_ms"] / empty["p50_ms"]
                targets.append("- scale %s: commit p50 in the big catalog / an empty one %.2fx "
                               "<= 1.2x: %s" % (s, r, verdict(r <= 1.2)))
            w8 = commits.get("commit_lake_w8_f1")
            if w8 and tps:
                r = w8.get("commits_per_s", 0) / tps
                targets.append("- scale %s: 8 writers %.0f commits/s / pgbench %.0f tps = %.2fx "
                               ">= 1.0x: %s" % (s, w8.get("commits_per_s", 0), tps, r,
                                                verdict(r >= 1.0)))
        summary = load_json(os.path.join(sd, "summary.json"))
        if summary:
            out += ["The partition summary's walk (GET .../stats/partitions reads what it "
                    "publishes): %s live files into %s buckets in %.1f s = %s files/s, %s steps "
                    "of %s files, %.2f ms a step (at the default pace, one step a second: "
                    "%.0f min a walk)." % (
                        format(summary["live_files"], ","), format(summary["buckets"], ","),
                        summary["walk_ms"] / 1000, format(summary.get("files_per_s") or 0, ","),
                        format(summary["steps"], ","), format(summary["batch"], ","),
                        summary["ms_per_step"],
                        summary["steps"] * (1000 + summary["ms_per_step"]) / 60000), ""]
            if "refresh_ms" in summary:
                out += ["Then a refresh (by %s) of %s snapshots adding %s files "
                        "in %.3f s (the walk: %.1f s)." % (
                            summary.get("refresh_by", "?"),
                            format(summary["refresh_snapshots"], ","),
                            format(summary["refresh_files"], ","), summary["refresh_ms"] / 1000,
                            summary["walk_ms"] / 1000), ""]
        maint = load_json(os.path.join(sd, "maintenance.json"))
        if maint:
            out += ["| maintenance (on a copy of the database) | rows | seconds | rate |",
                    "|---|---:|---:|---:|",
                    "| expiry of the whole history (passes of 100,000) | %s snapshots | %.3f | "
                    "%s snapshots/s |" % (format(maint["snapshots_expired"], ","),
                                          maint["expire_s"],
                                          format(maint.get("snapshots_per_s") or 0, ",")),
                    "| retirement of the dropped `t001`, end to end (objects and rows) | %s "
                    "file rows | %.3f | %s us/row |" % (
                        format(maint["files_retired"], ","), maint["retire_s"],
                        maint.get("us_per_file_row"))]
            if maint.get("lock_held_us") is not None:
                out += ["| of which under the catalog lock (the mark) | %s file rows | %.6f | "
                        "%s us/row |" % (format(maint["files_retired"], ","),
                                         maint["lock_held_us"] / 1e6,
                                         maint.get("lock_us_per_file_row"))]
            if "paths_cleaned" in maint:
                out += ["| cleanup of `t001`'s paths, queued again (objects never written: "
                        "`missing`) | "
                        "%s paths | %.3f | %s paths/s |" % (
                            format(maint["paths_cleaned"], ","), maint["cleanup_s"],
                            format(maint.get("paths_per_s") or 0, ",")),
                        "| the hydrator, one pass over pending files in the big catalog | "
                        "%s files | %.3f | %s files/s |" % (
                            format(maint["files_hydrated"], ","), maint["hydrate_s"],
                            format(maint.get("hydrated_per_s") or 0, ","))]
            out += [""]
            rate = maint.get("snapshots_per_s") or 0
            # The target is the time commits wait on a retirement: under the
            # lock. Older runs (before migration 18) held it for every row.
            per_row = maint.get("lock_us_per_file_row", maint.get("us_per_file_row"))
            judged = verdict(rate >= 100000) if maint["snapshots"] >= 1000000 else \
                "not judged: the target is for a history of >= 1M snapshots"
            targets.append("- scale %s: expiry %s snapshots/s >= 100,000/s: %s" % (
                s, format(rate, ","), judged))
            if per_row is not None:
                judged = verdict(per_row <= 2.0) if maint["t001_files"] >= 1000000 else \
                    "not judged: the target is for a table of >= 1M files"
                targets.append("- scale %s: retirement %.4f us/row under the catalog lock "
                               "(%s us/row end to end, without it) <= 2 us/row: %s" % (
                                   s, per_row, maint.get("us_per_file_row"), judged))
    out += ["## Targets", ""] + (targets or ["(none judged)"]) + [""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
