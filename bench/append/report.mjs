// The report of bench/append/run.sh: reads the JSON results in DIR and prints
// one table. Exits 1 when DuckDB did not read back every appended row.
//
//   node report.mjs DIR
import fs from 'node:fs'
import path from 'node:path'

// Issue 5's public anchor: pyhoglake's append throughput.
const PYHOGLAKE_ROWS_PER_S = 202000

const dir = process.argv[2]
const load = (name) => {
  const f = path.join(dir, `${name}.json`)
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null
}
const env = load('env')
const file = load('ours-file')
const threaded = load('ours-file-threads') // run.sh --encode-threads N > 1
const moto = load('ours-moto')
const readBack = load('read-ours')
const codec = load('codec')
const duck = load('duck-write')

const n0 = (x) => Math.round(x).toLocaleString('en-US')
const f2 = (x) => x.toFixed(2)
const mb = (b) => (b / 1e6).toFixed(1)

const rows = file.rows
const lines = []
const out = (s = '') => lines.push(s)
out(`Appends of ${n0(rows)} rows (bench/parquet's event table), best of ${file.repeat}; ` +
  `${env.cpu}, ${env.nproc} CPUs, load ${env.load_start} -> ${env.load_end}`)
out()
out('| writer | target | wall s | CPU s | rows/s (wall) | rows/s (CPU) | file MB | peak RSS MB |')
out('|---|---|---:|---:|---:|---:|---:|---:|')
const row = (who, where, s, cpu, bytes, rssKb) =>
  out(`| ${who} | ${where} | ${s.toFixed(3)} | ${cpu.toFixed(3)} | ${n0(rows / s)} | ${n0(rows / cpu)} | ` +
    `${mb(bytes)} | ${(rssKb / 1024).toFixed(0)} |`)
row('hoglake hl_table_append', 'file://', file.append_s, file.append_cpu_s, file.file_bytes, file.peak_rss_kb)
if (threaded)
  row(`hoglake hl_table_append, ${threaded.encode_threads} encode threads`, 'file://', threaded.append_s,
    threaded.append_cpu_s, threaded.file_bytes, threaded.peak_rss_kb)
row('hoglake hl_table_append', 'moto (S3)', moto.append_s, moto.append_cpu_s, moto.file_bytes, moto.peak_rss_kb)
if (codec)
  row('hoglake codec alone (pq_bench)', 'local file', codec.write_s, codec.write_cpu_s, codec.file_bytes,
    codec.peak_rss_kb)
if (duck)
  row('DuckDB COPY, threads=1', 'local file', duck.write_s, duck.write_cpu_s, duck.file_bytes, duck.peak_rss_kb)
out()
out('Where the append time goes (best file:// and moto runs; generation excluded):')
for (const [name, r] of [['file://', file], ['moto', moto]])
  out(`  ${name.padEnd(8)} table read ${f2(r.setup_s)} s, cast + encode ${f2(r.encode_s)} s, ` +
    `last row group + footer + upload + commit ${f2(r.finish_s)} s (generation apart: ${f2(r.gen_s)} s)`)
out()
out('Ratios (rows/s ours / rows/s theirs; target >= 1.0x DuckDB on file://):')
if (duck) {
  const judge = (x) => (x >= 1 ? 'met' : 'MISSED')
  const rf = duck.write_s / file.append_s
  const rfc = duck.write_cpu_s / file.append_cpu_s
  out(`  file:// / DuckDB: ${f2(rf)}x wall, ${f2(rfc)}x CPU   target >= 1.0x: ${judge(rf)}`)
  out(`  moto    / DuckDB: ${f2(duck.write_s / moto.append_s)}x wall, ${f2(duck.write_cpu_s / moto.append_cpu_s)}x CPU`)
}
if (codec)
  out(`  file:// / the codec alone: ${f2(codec.write_s / file.append_s)}x wall ` +
    `(the library's cost over pq_writer: ${f2(file.append_s - codec.write_s)} s)`)
out(`  file:// / pyhoglake's ${n0(PYHOGLAKE_ROWS_PER_S)} rows/s: ${f2(rows / file.append_s / PYHOGLAKE_ROWS_PER_S)}x; ` +
  `moto: ${f2(rows / moto.append_s / PYHOGLAKE_ROWS_PER_S)}x   (an order of magnitude: >= 10x)`)
// The threaded figure stands apart: the DuckDB ratio and its target are single-thread.
if (threaded)
  out(`  file:// with ${threaded.encode_threads} encode threads / pyhoglake: ` +
    `${f2(rows / threaded.append_s / PYHOGLAKE_ROWS_PER_S)}x; / single-thread file://: ` +
    `${f2(file.append_s / threaded.append_s)}x`)
out()
let ok = true
const readRows = readBack ? Number(readBack.rows) : -1
if (readRows === rows) {
  out(`check: DuckDB reads ${n0(readRows)} rows back from the file:// append (${file.file}); ` +
    `both appends registered ${n0(rows)} rows.`)
} else {
  out(`CHECK FAILED: DuckDB read ${readRows} rows from ${file.file}, expected ${rows}`)
  ok = false
}
if (env.smoke) out('(smoke run: no speed is judged)')
console.log(lines.join('\n'))
process.exit(ok ? 0 : 1)
