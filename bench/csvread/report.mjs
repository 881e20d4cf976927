// Reads what bench/csvread/run.sh collected in DIR and prints the comparison;
// exits 1 when the two CSVs do not hold the same data (never because of speed).
//
//   node report.mjs DIR
import fs from 'node:fs'
import path from 'node:path'

const dir = process.argv[2]
if (!dir) {
  process.stderr.write('usage: node report.mjs DIR\n')
  process.exit(2)
}
const read = (name) => fs.readFileSync(path.join(dir, name), 'utf8')
const env = JSON.parse(read('env.json'))
const check = JSON.parse(read('check.json'))
const rounds = read('rounds.jsonl').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
const loadEnd = fs.existsSync(path.join(dir, 'load_end')) ? read('load_end').trim() : '?'

const fmt = (n, d = 2) => Number(n).toFixed(d)
const fmtInt = (n) => Math.round(n).toLocaleString('en-US')
const pad = (s, n) => String(s).padEnd(n)
const lpad = (s, n) => String(s).padStart(n)
const range = (xs) => `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const out = []
const duckVersion = rounds.find((r) => r.peer)?.peer.version ?? '?'
out.push(
  `CSV read: hoglake read --format csv > FILE vs DuckDB ${duckVersion} (threads=1) ` +
    `COPY (SELECT * FROM read_parquet(...)) TO FILE (FORMAT csv)`
)
out.push(
  `${fmtInt(env.rows)} rows of the event table, ${env.rounds} round(s), each side a fresh ` +
    `process, the first side alternating; machine: ${env.cpu}, ${env.nproc} cores, ` +
    `load average at start ${env.load_start}, at end ${loadEnd}; hoglake --read-threads ` +
    `${env.read_threads}`
)
if (env.smoke) out.push('SMOKE RUN: too small for the timings to mean anything; only the check is judged.')
out.push('')
const head =
  pad('round', 7) + pad('side', 9) + lpad('wall s', 8) + lpad('cpu s', 8) + lpad('user', 7) +
  lpad('sys', 7) + lpad('rows/s', 12) + lpad('MB out', 9) + lpad('COPY s', 8) + lpad('ratio', 8)
out.push(head)
out.push('-'.repeat(head.length))
const ratios = []
const cpuRatios = []
for (const r of [...new Set(rounds.map((x) => x.round))]) {
  const pair = rounds.filter((x) => x.round === r)
  const ours = pair.find((x) => x.side === 'hoglake')
  const duck = pair.find((x) => x.side === 'duckdb')
  const ratio = duck.wall_s / ours.wall_s
  ratios.push(ratio)
  cpuRatios.push((duck.user_s + duck.sys_s) / (ours.user_s + ours.sys_s))
  for (const x of pair) {
    out.push(
      pad(x === pair[0] ? r : '', 7) + pad(x.side, 9) + lpad(fmt(x.wall_s), 8) +
        lpad(fmt(x.user_s + x.sys_s), 8) + lpad(fmt(x.user_s), 7) + lpad(fmt(x.sys_s), 7) +
        lpad(fmtInt(env.rows / x.wall_s), 12) + lpad(fmt(x.bytes / 1e6, 1), 9) +
        lpad(x.peer ? fmt(x.peer.copy_s) : '', 8) + lpad(x === pair[1] ? `${fmt(ratio)}x` : '', 8)
    )
  }
}
out.push('')
const side = (name) => rounds.filter((x) => x.side === name)
for (const name of ['hoglake', 'duckdb']) {
  const xs = side(name)
  out.push(
    `${pad(name, 8)} wall ${range(xs.map((x) => x.wall_s))} s, cpu ` +
      `${range(xs.map((x) => x.user_s + x.sys_s))} s, ` +
      `${fmtInt(Math.min(...xs.map((x) => env.rows / x.wall_s)))}-` +
      `${fmtInt(Math.max(...xs.map((x) => env.rows / x.wall_s)))} rows/s` +
      (name === 'duckdb' ? `; the COPY statement alone ${range(xs.map((x) => x.peer.copy_s))} s` : '')
  )
}
const med = median(ratios)
// DuckDB's process carries Node and DuckDB's own start; hoglake's, its
// requests to the catalog. The COPY statement alone against hoglake's whole
// process is the stricter comparison.
const stmtRatios = [...new Set(rounds.map((x) => x.round))].map((r) => {
  const pair = rounds.filter((x) => x.round === r)
  return pair.find((x) => x.side === 'duckdb').peer.copy_s / pair.find((x) => x.side === 'hoglake').wall_s
})
out.push(
  `ratio (DuckDB wall / hoglake wall, >1 = hoglake faster): ${range(ratios)}, median ${fmt(med)}; ` +
    `CPU ratio ${range(cpuRatios)}`
)
out.push(`ratio of DuckDB's COPY statement alone to hoglake's whole process: ${range(stmtRatios)}, median ${fmt(median(stmtRatios))}`)
if (!env.smoke) out.push(`csv read >= 1.0x DuckDB: ${med >= 1.0 ? 'met' : 'MISSED'} (median of the rounds' ratios ${fmt(med)}x)`)
out.push('')
out.push(
  `check: ${check.same_data ? 'the same data' : 'THE DATA DIFFERS'} in both CSVs ` +
    `(${fmtInt(check.rows)} rows expected; typed as the event table, multiset fingerprint ` +
    `of row hashes: hoglake ${JSON.stringify(check.data.ours)}, DuckDB ${JSON.stringify(check.data.duck)})`
)
const diffs = Object.entries(check.differences)
if (!diffs.length) out.push('text: identical in every column')
for (const [col, d] of diffs) {
  if (col === 'line_end') out.push(`text: records end with ${d.ours} (hoglake) and ${d.duck} (DuckDB)`)
  else out.push(`text: column ${col} differs in ${fmtInt(d.rows)} rows, e.g. hoglake '${d.ours}', DuckDB '${d.duck}'`)
}
process.stdout.write(out.join('\n') + '\n')
process.exit(check.same_data ? 0 : 1)
