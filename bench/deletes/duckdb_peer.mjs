// The DuckDB side of bench/deletes (see README.md there). Prints one JSON
// object on stdout.
//
//   node duckdb_peer.mjs --ours OURS.json --db DIR/peer.duckdb [--threads N]
//   node duckdb_peer.mjs --sort IN.parquet --out SORTED.parquet
//       Untimed setup: IN's rows ordered by (session_id, ts), written as
//       Parquet; prints the session in the middle of the order (the lookup).
//
// OURS.json is deletes_bench's output: the table's data files, its delete
// predicates and the point lookup's. Untimed, the files are loaded into a
// table of an on-disk database (DuckDB's own storage, checkpointed). Then,
// per predicate, on a fresh copy of that table: DELETE ... WHERE predicate,
// timed (the statement and its commit), and the rows it removed, which must
// equal what hoglake deleted. The point lookup is timed as a count over
// read_parquet(files) with the same filter (DuckDB prunes by row-group
// statistics); its count must equal hoglake's.
//
// @duckdb/node-api is loaded from tools/node_modules (npm ci --prefix tools),
// or from $HOGLAKE_TOOLS_DIR.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = path.dirname(fileURLToPath(import.meta.url))
const toolsDir = path.resolve(process.env.HOGLAKE_TOOLS_DIR || path.join(here, '..', '..', 'tools'))
const toolsRequire = createRequire(path.join(toolsDir, 'package.json'))
const die = (msg, code = 1) => {
  process.stderr.write(`deletes peer: ${msg}\n`)
  process.exit(code)
}
const duckdb = await import(toolsRequire.resolve('@duckdb/node-api')).catch((e) =>
  die(`cannot load @duckdb/node-api from ${toolsDir}: ${e.message}`, 5))

const { values: opts } = parseArgs({
  options: {
    ours: { type: 'string' },
    db: { type: 'string' },
    threads: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
    sort: { type: 'string' },
    out: { type: 'string' },
  },
})
const q = (s) => `'${String(s).replaceAll("'", "''")}'`
if (opts.sort) {
  const conn = await (await duckdb.DuckDBInstance.create(':memory:')).connect()
  const src = `read_parquet(${q(opts.sort)})`
  await conn.run(`COPY (SELECT * FROM ${src} ORDER BY session_id, ts) TO ${q(opts.out)} (FORMAT parquet)`)
  const rows = (await conn.runAndReadAll(
    `SELECT session_id FROM (SELECT DISTINCT session_id FROM ${src} WHERE session_id IS NOT NULL)
     ORDER BY session_id LIMIT 1 OFFSET 1500`)).getRows()
  console.log(JSON.stringify({ lookup: rows[0][0] }))
  process.exit(0)
}
if (!opts.ours || !opts.db) die('usage: duckdb_peer.mjs --ours OURS.json --db FILE [--threads N]', 5)
const ours = JSON.parse(fs.readFileSync(opts.ours, 'utf8'))
const fileList = `[${ours.files.map(q).join(', ')}]`

fs.rmSync(opts.db, { force: true })
fs.rmSync(`${opts.db}.wal`, { force: true })
const conn = await (await duckdb.DuckDBInstance.create(opts.db)).connect()
await conn.run(`SET threads = ${Number(opts.threads)}`)
const scalar = async (sql) => {
  const rows = (await conn.runAndReadAll(sql)).getRows()
  return Number(rows[0][0])
}
const timed = async (sql) => {
  const t0 = process.hrtime.bigint()
  await conn.run(sql)
  return Number(process.hrtime.bigint() - t0) / 1e9
}

await conn.run(`CREATE TABLE base AS SELECT * FROM read_parquet(${fileList})`)
await conn.run('CHECKPOINT')
const rows = await scalar('SELECT count(*) FROM base')
if (rows !== ours.rows) die(`DuckDB read ${rows} rows, hoglake's files hold ${ours.rows}`)

const deletes = []
for (let i = 0; i < ours.predicates.length; i++) {
  const pred = ours.predicates[i]
  await conn.run('DROP TABLE IF EXISTS t')
  await conn.run('CREATE TABLE t AS SELECT * FROM base')
  await conn.run('CHECKPOINT')
  const wall = await timed(`DELETE FROM t WHERE ${pred}`)
  const removed = rows - (await scalar('SELECT count(*) FROM t'))
  if (removed !== ours.deletes[i].rows_deleted)
    die(`${pred}: DuckDB deleted ${removed} rows, hoglake ${ours.deletes[i].rows_deleted}`)
  const checkpoint = await timed('CHECKPOINT')
  deletes.push({ predicate: pred, wall_s: wall, checkpoint_s: checkpoint, rows_deleted: removed })
}
await conn.run('DROP TABLE IF EXISTS t')

let lookup = null
if (ours.lookup_predicate) {
  const sql = `SELECT count(*) FROM read_parquet(${fileList}) WHERE ${ours.lookup_predicate}`
  const runs = []
  let count = 0
  for (let r = 0; r < Number(opts.repeat); r++) {
    const t0 = process.hrtime.bigint()
    count = await scalar(sql)
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
  if (count !== ours.lookup.rows_deleted)
    die(`lookup: DuckDB found ${count} rows, hoglake ${ours.lookup.rows_deleted}`)
  lookup = { predicate: ours.lookup_predicate, wall_s: runs, rows: count }
}
console.log(JSON.stringify({ threads: Number(opts.threads), rows, deletes, lookup }))
