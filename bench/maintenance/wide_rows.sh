# shellcheck shell=bash
# Sourced by the hydrator's benchmarks (hydrate_bench.sh, bench/scale/run.sh):
# the table of 20 columns they register pending files of, and its rows.
#
#   wide_columns         prints the table's columns as `hoglake table create`
#                        takes them: id, then longs, ints, doubles, strings,
#                        timestamps, dates and booleans in turn
#   wide_rows N          prints N rows as JSON Lines (the same rows every time)

wide_columns() {
  local types=(long int double string timestamptz date boolean) cols="id:long!" c
  for c in $(seq 1 19); do cols="$cols, c$c:${types[$((c % 7))]}"; done
  echo "$cols"
}

wide_rows() {
  awk -v n="$1" 'BEGIN {
    srand(7)
    for (i = 0; i < n; i++) {
      printf "{\"id\":%d", i
      for (c = 1; c <= 19; c++) {
        k = c % 7
        if (k == 0) printf ",\"c%d\":%d", c, int(rand() * 1e12)
        else if (k == 1) printf ",\"c%d\":%d", c, int(rand() * 1e6)
        else if (k == 2) printf ",\"c%d\":%.4f", c, rand() * 1000
        else if (k == 3) printf ",\"c%d\":\"v-%d\"", c, int(rand() * 5000)
        else if (k == 4) printf ",\"c%d\":\"2026-01-%02dT%02d:00:00Z\"", c, 1 + int(rand() * 28), int(rand() * 24)
        else if (k == 5) printf ",\"c%d\":\"2026-01-%02d\"", c, 1 + int(rand() * 28)
        else printf ",\"c%d\":%s", c, (rand() < 0.5 ? "true" : "false")
      }
      printf "}\n"
    }
  }'
}
