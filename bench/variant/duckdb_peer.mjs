// The DuckDB side of bench/variant (see README.md there). Prints one JSON
// object on stdout.
//
//   node duckdb_peer.mjs --jsonl FILE --out DIR [--ours OURS.parquet]
//                        [--threads N] [--repeat R]
//
// Times, R times each, in an in-memory database with N threads (default 1):
// - write: COPY (SELECT json::VARIANT AS properties FROM read_ndjson_objects(FILE))
//   TO DIR/duck.parquet (FORMAT parquet): the same JSON Lines encoded into a
//   VARIANT column and written, as variant_bench's write phase does;
// - read: every value of that file cast to JSON text (summed lengths, so
//   nothing is printed), and the same over OURS.parquet when given.
// The number of rows and the JSON bytes read are printed so the two sides
// can be checked against each other.
//
// @duckdb/node-api is loaded from tools/node_modules, or $HOGLAKE_TOOLS_DIR.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = path.dirname(fileURLToPath(import.meta.url))
const toolsDir = path.resolve(process.env.HOGLAKE_TOOLS_DIR || path.join(here, '..', '..', 'tools'))
const toolsRequire = createRequire(path.join(toolsDir, 'package.json'))
const die = (msg, code = 1) => {
  process.stderr.write(`variant peer: ${msg}\n`)
  process.exit(code)
}
const duckdb = await import(toolsRequire.resolve('@duckdb/node-api')).catch((e) =>
  die(`cannot load @duckdb/node-api from ${toolsDir}: ${e.message}`, 5))

const { values: opts } = parseArgs({
  options: {
    jsonl: { type: 'string' },
    out: { type: 'string' },
    ours: { type: 'string' },
    threads: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
  },
})
if (!opts.jsonl || !opts.out) die('usage: duckdb_peer.mjs --jsonl FILE --out DIR', 5)
const q = (s) => `'${String(s).replaceAll("'", "''")}'`
const conn = await (await duckdb.DuckDBInstance.create(':memory:', { threads: opts.threads })).connect()
const repeat = Number(opts.repeat)
const duck = path.join(opts.out, 'duck.parquet')
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

async function timed(sql) {
  const w0 = performance.now()
  const c0 = cpu()
  const reader = await conn.runAndReadAll(sql)
  return { wall: (performance.now() - w0) / 1000, cpu: cpu() - c0, rows: reader.getRows() }
}

const result = { threads: Number(opts.threads), write_wall_s: [], write_cpu_s: [], read_wall_s: [],
  read_cpu_s: [], ours_read_wall_s: [], ours_read_cpu_s: [] }
for (let k = 0; k < repeat; k++) {
  fs.rmSync(duck, { force: true })
  const w = await timed(`COPY (SELECT json::VARIANT AS properties FROM read_ndjson_objects(${q(opts.jsonl)})) ` +
    `TO ${q(duck)} (FORMAT parquet)`)
  result.write_wall_s.push(w.wall)
  result.write_cpu_s.push(w.cpu)
  const readSql = (file) => `SELECT count(*), sum(length(properties::JSON::VARCHAR)) FROM read_parquet(${q(file)})`
  const r = await timed(readSql(duck))
  result.read_wall_s.push(r.wall)
  result.read_cpu_s.push(r.cpu)
  result.rows = Number(r.rows[0][0])
  result.json_bytes_out = Number(r.rows[0][1])
  if (opts.ours) {
    const o = await timed(readSql(opts.ours))
    result.ours_read_wall_s.push(o.wall)
    result.ours_read_cpu_s.push(o.cpu)
    result.ours_rows = Number(o.rows[0][0])
    result.ours_json_bytes = Number(o.rows[0][1])
  }
}
result.file_bytes = fs.statSync(duck).size
process.stdout.write(JSON.stringify(result) + '\n')
