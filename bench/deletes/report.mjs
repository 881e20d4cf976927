// bench/deletes' report: ranges over repetitions, never the best run alone.
//   node report.mjs DIR   (DIR holds env.json, ours.json, duck1.json, duckN.json)
import fs from 'node:fs'
import path from 'node:path'

const dir = process.argv[2]
const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))
const env = read('env.json')
const ours = read('ours.json')
const duck1 = read('duck1.json')
const duckN = read('duckN.json')
const range = (xs, f = (x) => x.toFixed(3)) =>
  `${f(Math.min(...xs))}–${f(Math.max(...xs))}`
const ms = (x) => (x * 1000).toFixed(0)
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const ourWall = ours.deletes.map((d) => d.wall_s)
const ratio = (peer) => ours.deletes.map((d, i) => d.wall_s / peer.deletes[i].wall_s)
const out = []
out.push(`# Deletes: hoglake vs DuckDB (${env.rows.toLocaleString('en-US')} rows)`)
out.push('')
out.push(`CPU: ${env.cpu} × ${env.nproc}; load ${env.load_start} → ${env.load_end}`)
out.push(`Table: ${ours.files.length} data file(s)`)
out.push('')
out.push('## Delete 1% by a predicate on `value` (no file or row group ordered by it)')
out.push('')
out.push('| | wall ms (range) | notes |')
out.push('|---|---|---|')
const d0 = ours.deletes[0]
out.push(`| hoglake hl_table_delete | ${range(ourWall, ms)} | CPU ${range(ours.deletes.map((d) => d.cpu_s), ms)} ms client-side; rows ${d0.rows_deleted}; files read ${d0.files_scanned}, row groups ${d0.row_groups_scanned} (pruned ${d0.row_groups_pruned}); vectors written ${range(ours.deletes.map((d) => d.bytes_written), String)} bytes in ${d0.files_affected} Puffin file(s) |`)
out.push(`| DuckDB DELETE, threads=1 | ${range(duck1.deletes.map((d) => d.wall_s), ms)} | checkpoint after: ${range(duck1.deletes.map((d) => d.checkpoint_s), ms)} ms |`)
out.push(`| DuckDB DELETE, threads=${duckN.threads} | ${range(duckN.deletes.map((d) => d.wall_s), ms)} | checkpoint after: ${range(duckN.deletes.map((d) => d.checkpoint_s), ms)} ms |`)
out.push('')
const r1 = ratio(duck1)
const rN = ratio(duckN)
out.push(`Ratio hoglake / DuckDB (threads=1): ${range(r1, (x) => x.toFixed(2))}x; (threads=${duckN.threads}): ${range(rN, (x) => x.toFixed(2))}x. Target ≤ 1.0x: ${Math.max(...rN) <= 1 ? 'met' : 'NOT met'} against threads=${duckN.threads} (met on ${rN.filter((x) => x <= 1).length} of ${rN.length} repetitions; per repetition: ${rN.map((x) => x.toFixed(2)).join(', ')}).`)
// The peer's time for the same statement varies several-fold between
// repetitions here: the medians say where each side usually lands.
const med = (peer) => median(peer.deletes.map((d) => d.wall_s))
out.push('')
out.push(`Medians: hoglake ${ms(median(ourWall))} ms, DuckDB threads=1 ${ms(med(duck1))} ms, threads=${duckN.threads} ${ms(med(duckN))} ms; hoglake / DuckDB: ${(median(ourWall) / med(duck1)).toFixed(2)}x (threads=1), ${(median(ourWall) / med(duckN)).toFixed(2)}x (threads=${duckN.threads}).`)
if (ours.lookup) {
  const l = ours.lookup
  const groups = l.row_groups_scanned + l.row_groups_pruned
  out.push('')
  out.push(`## Point lookup \`${ours.lookup_predicate}\` (table sorted by session_id)`)
  out.push('')
  out.push(`hoglake (dry-run delete: plan, prune, decode the predicate column): ${ms(l.wall_s)} ms, ${l.rows_deleted} rows; files read ${l.files_scanned} of ${l.files_scanned + l.files_pruned}; row groups read ${l.row_groups_scanned} of ${groups} (${((100 * l.row_groups_scanned) / Math.max(1, groups)).toFixed(1)}%, target ≤ 5%); pages of session_id read ${l.pages_scanned} of ${l.pages_scanned + l.pages_pruned}.`)
  const ls = ours.lookup_scan
  if (ls) {
    const pages = ls.pages_scanned + ls.pages_pruned
    out.push(`hoglake read (hl_table_scan_with, event_id of the matching rows): ${ms(ls.wall_s)} ms (CPU ${ms(ls.cpu_s)} ms), ${ls.rows} rows; row groups read ${ls.row_groups_scanned} of ${ls.row_groups_scanned + ls.row_groups_pruned}; pages read ${ls.pages_scanned} of ${pages} (${((100 * ls.pages_scanned) / Math.max(1, pages)).toFixed(1)}%).`)
    if (ls.rows !== l.rows_deleted) { console.error(`lookup: the read found ${ls.rows} rows, the delete ${l.rows_deleted}`); process.exitCode = 1 }
  }
  out.push(`DuckDB count over read_parquet, threads=1: ${range(duck1.lookup.wall_s, ms)} ms; threads=${duckN.threads}: ${range(duckN.lookup.wall_s, ms)} ms.`)
}
console.log(out.join('\n'))
