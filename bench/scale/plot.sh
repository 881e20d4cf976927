#!/usr/bin/env bash
# One PNG per operation: p50 and p99 latency against the catalog's data
# files, from bench/scale/run.sh's results.tsv (gnuplot, log-log axes).
#
#   bench/scale/plot.sh RESULTS.TSV OUTDIR
set -euo pipefail
results=$1
outdir=$2
mkdir -p "$outdir"
ops=$(awk -F'\t' 'NR > 1 {print $4}' "$results" | sort -u)
for op in $ops; do
  data="$outdir/$op.dat"
  # x: the catalog's data files by its scale (10M at 1x); the latest row of
  # each scale, so a rerun of a scale replaces its figure
  awk -F'\t' -v op="$op" 'NR > 1 && $4 == op {row[$1] = ($1 * 10000000) "\t" $6 "\t" $8}
    END {for (k in row) print row[k]}' "$results" | sort -n >"$data"
  [ "$(wc -l <"$data")" -ge 1 ] || continue
  gnuplot <<GP
set terminal pngcairo size 640,400 noenhanced
set output "$outdir/$op.png"
set title "$op: latency against catalog size"
set xlabel "data files in the catalog (10M at scale 1)"
set ylabel "milliseconds"
set logscale xy
set grid
set key top left
set format x "%.0s%c"
plot "$data" using 1:2 with linespoints title "p50", "$data" using 1:3 with linespoints title "p99"
GP
  rm -f "$data"
done
