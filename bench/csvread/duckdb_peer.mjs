// The DuckDB side of bench/csvread (see README.md there). Each subcommand runs
// as its own process and prints one JSON object on stdout.
//
//   node duckdb_peer.mjs copy --files F1.parquet,F2.parquet --out OUT.csv
//       With threads=1 and TimeZone UTC, runs
//       COPY (SELECT * FROM read_parquet([...])) TO OUT (FORMAT csv)
//       and reports the statement's own wall and CPU time (the process's
//       whole time is what run.sh measures).
//   node duckdb_peer.mjs check --ours A.csv --duck B.csv --rows N
//       Untimed: both CSVs hold N rows and the same data (typed as the event
//       table; a multiset fingerprint of the row hashes), and where their text
//       differs, per column: how many rows, and one example.
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

function die(msg, code = 1) {
  process.stderr.write(`duckdb_peer: ${msg}\n`)
  process.exit(code)
}

let duckdb
try {
  duckdb = await import(toolsRequire.resolve('@duckdb/node-api'))
} catch (err) {
  // 77: the smoke test's "skipped" code.
  die(`cannot load @duckdb/node-api from ${toolsDir} (run: npm ci --prefix tools): ${err.message}`, 77)
}

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    files: { type: 'string' },
    out: { type: 'string' },
    ours: { type: 'string' },
    duck: { type: 'string' },
    rows: { type: 'string' },
  },
})

const sqlString = (s) => `'${String(s).replaceAll("'", "''")}'`
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')

async function open() {
  const instance = await duckdb.DuckDBInstance.create(':memory:')
  const conn = await instance.connect()
  await conn.run("SET TimeZone = 'UTC'")
  const version = (await rowsOf(conn, 'SELECT version() AS v'))[0].v
  return { conn, version }
}

async function rowsOf(conn, sql) {
  return (await conn.runAndReadAll(sql)).getRowObjects()
}

async function cmdCopy() {
  if (!opts.files || !opts.out) die('copy needs --files and --out')
  const files = opts.files.split(',').filter(Boolean)
  const { conn, version } = await open()
  await conn.run('SET threads = 1')
  const sql =
    `COPY (SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}])) ` +
    `TO ${sqlString(opts.out)} (FORMAT csv)`
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  await conn.run(sql)
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage(cpu0)
  emit({ engine: 'duckdb', version, sql, copy_s: seconds, copy_cpu_s: (cpu.user + cpu.system) / 1e6 })
}

// The event table's columns (bench/parquet/events.h) as both CSVs spell them.
const TYPES = {
  session_id: 'VARCHAR',
  event_id: 'BIGINT',
  ts: 'TIMESTAMPTZ',
  event: 'VARCHAR',
  value: 'DOUBLE',
  properties: 'VARCHAR',
}
const COLUMNS = Object.keys(TYPES)

const csvAs = (file, types) =>
  `read_csv(${sqlString(file)}, header = true, auto_detect = false, quote = '"', escape = '"', ` +
  `delim = ',', columns = {${COLUMNS.map((c) => `'${c}': '${types[c]}'`).join(', ')}})`

// The line end of a file's first record: CRLF or LF.
function lineEnd(file) {
  const fd = fs.openSync(file, 'r')
  const b = Buffer.alloc(4096)
  const n = fs.readSync(fd, b, 0, b.length, 0)
  fs.closeSync(fd)
  const i = b.subarray(0, n).indexOf(10)
  return i > 0 && b[i - 1] === 13 ? 'CRLF' : 'LF'
}

async function cmdCheck() {
  if (!opts.ours || !opts.duck || !opts.rows) die('check needs --ours, --duck and --rows')
  const { conn, version } = await open()
  const want = Number(opts.rows)
  // The data: the rows typed as the event table, as a multiset fingerprint
  // (the count, the sum and the xor of every row's hash), so that row order
  // does not matter.
  const allColumns = COLUMNS.join(', ')
  const fingerprint = async (file) =>
    (
      await rowsOf(
        conn,
        `SELECT count(*)::VARCHAR AS rows, sum(h::HUGEINT)::VARCHAR AS sum, bit_xor(h)::VARCHAR AS xor
         FROM (SELECT hash(${allColumns}) AS h FROM ${csvAs(file, TYPES)})`
      )
    )[0]
  const data = { ours: await fingerprint(opts.ours), duck: await fingerprint(opts.duck) }
  // The text, row by row in file order (both write the files' order), column
  // by column: how many rows differ, and the first that does.
  const text = Object.fromEntries(COLUMNS.map((c) => [c, 'VARCHAR']))
  const [counts] = await rowsOf(
    conn,
    `SELECT ${COLUMNS.map((c) => `count_if(o.${c} IS DISTINCT FROM d.${c})::VARCHAR AS ${c}`).join(', ')},
            ${COLUMNS.map((c) => `arg_min([o.${c}, d.${c}], o.event_id::BIGINT) FILTER (o.${c} IS DISTINCT FROM d.${c}) AS ${c}_example`).join(', ')}
     FROM ${csvAs(opts.ours, text)} o POSITIONAL JOIN ${csvAs(opts.duck, text)} d`
  )
  const differences = {}
  for (const c of COLUMNS) {
    if (counts[c] === '0') continue
    const ex = counts[`${c}_example`].items
    differences[c] = { rows: Number(counts[c]), ours: ex[0], duck: ex[1] }
  }
  const ends = { ours: lineEnd(opts.ours), duck: lineEnd(opts.duck) }
  if (ends.ours !== ends.duck) differences.line_end = ends
  const same =
    data.ours.rows === String(want) && JSON.stringify(data.ours) === JSON.stringify(data.duck)
  emit({ version, rows: want, data, same_data: same, differences })
}

const commands = { copy: cmdCopy, check: cmdCheck }
const cmd = commands[positionals[0]]
if (!cmd) die(`usage: duckdb_peer.mjs copy|check ... (got '${positionals[0] ?? ''}')`, 2)
await cmd()
