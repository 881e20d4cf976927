// bench/variant's report: ranges over repetitions, medians, and the
// ratios of the medians (DuckDB's time over ours: above 1, we are faster).
//
//   node report.mjs OURS.json DUCKDB.json LOAD_START LOAD_END NPROC CPU
import fs from 'node:fs'

const [oursPath, duckPath, loadStart, loadEnd, nproc, cpu] = process.argv.slice(2)
const ours = JSON.parse(fs.readFileSync(oursPath, 'utf8'))
const duck = JSON.parse(fs.readFileSync(duckPath, 'utf8'))
const median = (v) => {
  const s = [...v].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const range = (v, scale = 1, digits = 2) =>
  `${(Math.min(...v) * scale).toFixed(digits)}-${(Math.max(...v) * scale).toFixed(digits)}`
const perRow = (v) => range(v, 1e6 / ours.rows, 2)
let failed = false
const check = (ok, what) => {
  if (!ok) {
    failed = true
    console.log(`CHECK FAILED: ${what}`)
  }
}
check(ours.rows === duck.rows, `rows: ours ${ours.rows}, DuckDB's file ${duck.rows}`)
check(duck.ours_rows === ours.rows, `DuckDB read ${duck.ours_rows} rows of our file`)
check(duck.ours_json_bytes === ours.json_bytes_out,
  `JSON bytes of our file: ours ${ours.json_bytes_out}, DuckDB ${duck.ours_json_bytes}`)

console.log(`machine: ${nproc} vCPU ${cpu}; load ${loadStart} -> ${loadEnd}`)
console.log(`input: ${ours.rows} rows, ${(ours.input_bytes / ours.rows).toFixed(0)} bytes of JSON a row; ` +
  `batches of ${ours.batch_rows} rows; DuckDB threads=${duck.threads}`)
console.log(`files: ours ${(ours.file_bytes / 1e6).toFixed(1)} MB (12 shredded fields, ZSTD), ` +
  `DuckDB's ${(duck.file_bytes / 1e6).toFixed(1)} MB`)
console.log('')
console.log(`encode JSON -> Variant (ours, CPU): ${perRow(ours.encode_cpu_s)} us/row ` +
  `(target <= 1.6 us/row)`)
const row = (name, o, d) => {
  const ratio = median(d) / median(o)
  console.log(`${name.padEnd(34)} ours ${range(o)} s   DuckDB ${range(d)} s   ` +
    `median ratio ${ratio.toFixed(2)}x (target >= 1.0x)`)
}
row('write (read, encode, shred, write)', ours.write_wall_s, duck.write_wall_s)
console.log(`${''.padEnd(34)} CPU ours ${perRow(ours.write_cpu_s)} us/row, DuckDB ` +
  `${range(duck.write_cpu_s, 1e6 / ours.rows)} us/row`)
row('read back, decode to JSON', ours.read_wall_s, duck.read_wall_s)
console.log(`${''.padEnd(34)} CPU ours ${perRow(ours.read_cpu_s)} us/row, DuckDB ` +
  `${range(duck.read_cpu_s, 1e6 / ours.rows)} us/row`)
console.log(`${'DuckDB reading our file'.padEnd(34)} ${range(duck.ours_read_wall_s)} s`)
process.exit(failed ? 1 : 0)
