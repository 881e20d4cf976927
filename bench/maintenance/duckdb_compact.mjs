// The DuckDB peer of compact_bench.sh: the same rewrite as one server-side
// compaction group (read the input Parquet files, sort by the table's sort
// order, write one zstd file), timed inside DuckDB so Node's start-up does
// not count. Prints one JSON object: {seconds, cpu_seconds, rows, bytes_out}
// (cpu_seconds: the process's CPU time during the COPY).
//
//   node duckdb_compact.mjs --files LIST --out OUT.parquet --order-by 'team_id, ts'
//       [--threads N]
//
// LIST holds one input per line: its path, a tab, its first row id. The
// output carries each row's id (first row id + position in its file) as
// _hog_row_id, as the server's does. threads defaults to 1, as the
// server's rewrite runs on one thread. @duckdb/node-api comes from
// tools/node_modules (npm ci --prefix tools) or $HOGLAKE_TOOLS_DIR.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = path.dirname(fileURLToPath(import.meta.url))
const toolsDir = path.resolve(process.env.HOGLAKE_TOOLS_DIR || path.join(here, '..', '..', 'tools'))
const toolsRequire = createRequire(path.join(toolsDir, 'package.json'))
const duckdb = await import(toolsRequire.resolve('@duckdb/node-api'))

const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    out: { type: 'string' },
    'order-by': { type: 'string' },
    threads: { type: 'string', default: '1' },
  },
})
if (!values.files || !values.out || !values['order-by']) {
  process.stderr.write("usage: node duckdb_compact.mjs --files LIST --out OUT --order-by 'a, b'\n")
  process.exit(2)
}
const quote = (s) => `'${s.replaceAll("'", "''")}'`
const inputs = fs
  .readFileSync(values.files, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split('\t'))
const conn = await (await duckdb.DuckDBInstance.create(':memory:')).connect()
await conn.run(`SET threads = ${Number(values.threads)}`)
await conn.run("SET TimeZone = 'UTC'")
// preserve_insertion_order keeps ties in input order, as the server's
// stable sort does.
const starts = inputs.map(([f, start]) => `(${quote(f)}, ${Number(start)})`).join(', ')
const sql =
  `COPY (SELECT p.* EXCLUDE (filename, file_row_number), p.file_row_number + s.start AS ` +
  `_hog_row_id FROM read_parquet([${inputs.map(([f]) => quote(f)).join(', ')}], ` +
  `filename = true, file_row_number = true) p JOIN (VALUES ${starts}) s(f, start) ` +
  `ON p.filename = s.f ORDER BY ${values['order-by']}) TO ${quote(values.out)} ` +
  `(FORMAT parquet, COMPRESSION zstd)`
const cpu0 = process.cpuUsage()
const t0 = process.hrtime.bigint()
await conn.run(sql)
const t1 = process.hrtime.bigint()
const cpu = process.cpuUsage(cpu0)
const rows = await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet(${quote(values.out)})`)
process.stdout.write(
  JSON.stringify({
    seconds: Number(t1 - t0) / 1e9,
    cpu_seconds: (cpu.user + cpu.system) / 1e6,
    rows: Number(rows.getRows()[0][0]),
    bytes_out: fs.statSync(values.out).size,
  }) + '\n',
)
