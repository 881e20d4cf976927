// The DuckDB side of bench/parquet (see README.md there). Each subcommand is
// meant to run as its own process, so that its peak RSS is the phase's own, and
// prints one JSON object on stdout.
//
//   node duckdb_peer.mjs write --from OURS.parquet --out DUCK.parquet [--repeat N]
//       Loads OURS.parquet into an in-memory table (untimed; DuckDB keeps
//       in-memory tables uncompressed), then with threads=1 times
//       COPY events TO DUCK.parquet (FORMAT parquet, COMPRESSION zstd).
//   node duckdb_peer.mjs read --file F.parquet [--repeat N]
//       With threads=1, times a full scan of F that decodes every column
//       (scanSql below), then runs it once more under DuckDB's profiler to
//       report the scan operator's own share.
//   node duckdb_peer.mjs check --ours A.parquet --duck B.parquet
//       Untimed: the checksums of both files as DuckDB reads them, and the
//       rows of each that the other lacks (EXCEPT ALL, both ways).
//
// Memory: RSS is sampled every 2 ms while a timed statement runs (DuckDB runs
// statements off the JS thread), so a phase's peak can be told apart from
// what the process held before it (Node itself, the loaded table).
// process.resourceUsage().maxRSS, the process-wide peak, is reported too.
//
// @duckdb/node-api is loaded from tools/node_modules (npm ci --prefix tools),
// or from $HOGLAKE_TOOLS_DIR.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const nodeBaselineKb = process.resourceUsage().maxRSS // before DuckDB is loaded

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
    from: { type: 'string' },
    out: { type: 'string' },
    file: { type: 'string' },
    ours: { type: 'string' },
    duck: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    'row-group-size': { type: 'string' },
  },
})
const repeat = Math.max(1, Number(opts.repeat) || 1)

const sqlString = (s) => `'${String(s).replaceAll("'", "''")}'`
const rssKb = () => Math.round(process.memoryUsage.rss() / 1024)

// The same checksums as pq_bench's "checks" where DuckDB can compute them
// (string hashes are pq_bench's own; the EXCEPT ALL check covers content).
// strlen is the byte length (O(1) on a DuckDB string), so the query forces
// every column to be decoded without adding per-byte work. Sums wrap to
// 64 bits in JS to match pq_bench.
const scanSql = (file) => `
SELECT count(*)::VARCHAR AS rows,
       sum(strlen(session_id))::VARCHAR AS session_id_len,
       (count(*) - count(session_id))::VARCHAR AS session_id_nulls,
       sum(event_id)::VARCHAR AS event_id_sum,
       (count(*) - count(event_id))::VARCHAR AS event_id_nulls,
       sum(epoch_us(ts))::VARCHAR AS ts_sum,
       (count(*) - count(ts))::VARCHAR AS ts_nulls,
       min(epoch_us(ts))::VARCHAR AS ts_min,
       max(epoch_us(ts))::VARCHAR AS ts_max,
       sum(strlen(event))::VARCHAR AS event_len,
       (count(*) - count(event))::VARCHAR AS event_nulls,
       count(value)::VARCHAR AS value_count,
       sum(round(value * 100)::BIGINT)::VARCHAR AS value_cents,
       (count(*) - count(value))::VARCHAR AS value_nulls,
       sum(strlen(properties))::VARCHAR AS properties_len,
       (count(*) - count(properties))::VARCHAR AS properties_nulls
FROM read_parquet(${sqlString(file)})`

const WRAP = (v) => (v === null ? '0' : BigInt.asUintN(64, BigInt(v)).toString())

async function one(conn, sql) {
  const reader = await conn.runAndReadAll(sql)
  const rows = reader.getRowObjects()
  return rows[0]
}

function checksOf(row) {
  const out = {}
  for (const [k, v] of Object.entries(row)) out[k] = WRAP(v)
  return out
}

// With HL_BENCH_PERF_CTL (and optionally HL_BENCH_PERF_ACK) naming perf's
// control FIFOs (perf record -D -1 --control fifo:CTL[,ACK] ...), only the
// timed statements are sampled.
const perfCtl = process.env.HL_BENCH_PERF_CTL ? fs.openSync(process.env.HL_BENCH_PERF_CTL, 'w') : null
const perfAck =
  perfCtl !== null && process.env.HL_BENCH_PERF_ACK ? fs.openSync(process.env.HL_BENCH_PERF_ACK, 'r') : null
const perf = (on) => {
  if (perfCtl === null) return
  fs.writeSync(perfCtl, on ? 'enable\n' : 'disable\n')
  if (perfAck !== null) fs.readSync(perfAck, Buffer.alloc(8))
}

// Runs fn while sampling RSS; returns {seconds, cpuSeconds, peakKb}.
async function timed(fn) {
  let peak = rssKb()
  const timer = setInterval(() => {
    const r = rssKb()
    if (r > peak) peak = r
  }, 2)
  perf(true)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  await fn()
  const t1 = process.hrtime.bigint()
  const cpu = process.cpuUsage(cpu0)
  perf(false)
  clearInterval(timer)
  peak = Math.max(peak, rssKb())
  return { seconds: Number(t1 - t0) / 1e9, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakKb: peak }
}

async function open() {
  const instance = await duckdb.DuckDBInstance.create(':memory:')
  const conn = await instance.connect()
  const version = (await one(conn, 'SELECT version() AS v')).v
  return { instance, conn, version }
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}

// Per-column layout of a file: encodings, codec, row groups, bytes.
async function layout(conn, file) {
  const reader = await conn.runAndReadAll(`
    SELECT path_in_schema AS col, string_agg(DISTINCT encodings, ' | ') AS encodings,
           any_value(compression) AS codec, count(*)::INTEGER AS row_groups,
           sum(total_compressed_size)::BIGINT::VARCHAR AS compressed,
           sum(total_uncompressed_size)::BIGINT::VARCHAR AS uncompressed
    FROM parquet_metadata(${sqlString(file)}) GROUP BY ALL ORDER BY min(column_id)`)
  return reader.getRowObjects()
}

async function cmdWrite() {
  if (!opts.from || !opts.out) die('write needs --from and --out')
  const { conn, version } = await open()
  const afterLoadLibKb = rssKb()
  // Untimed load, with every thread DuckDB wants; insertion order is kept.
  await conn.run(`CREATE TABLE events AS SELECT * FROM read_parquet(${sqlString(opts.from)})`)
  const storage = (
    await conn.runAndReadAll(
      `SELECT string_agg(DISTINCT compression, ', ') AS c FROM pragma_storage_info('events')`
    )
  ).getRowObjects()[0].c
  await conn.run('SET threads = 1')
  const rowGroup = opts['row-group-size'] ? `, ROW_GROUP_SIZE ${Number(opts['row-group-size'])}` : ''
  const copy = `COPY events TO ${sqlString(opts.out)} (FORMAT parquet, COMPRESSION zstd${rowGroup})`
  let best = null
  let total = 0
  for (let i = 0; i < repeat; i++) {
    const rssBeforeKb = rssKb()
    const t = await timed(() => conn.run(copy))
    t.rssBeforeKb = rssBeforeKb
    total += t.seconds
    if (!best || t.seconds < best.seconds) best = t
  }
  const rows = Number((await one(conn, 'SELECT count(*) AS n FROM events')).n)
  emit({
    phase: 'write',
    engine: 'duckdb',
    version,
    sql: copy,
    rows,
    repeat,
    write_s: best.seconds,
    write_cpu_s: best.cpuSeconds,
    write_mean_s: total / repeat,
    file: opts.out,
    file_bytes: fs.statSync(opts.out).size,
    table_storage: storage,
    node_baseline_kb: nodeBaselineKb,
    duckdb_loaded_kb: afterLoadLibKb,
    rss_before_kb: best.rssBeforeKb,
    phase_peak_kb: best.peakKb,
    writer_kb: best.peakKb - best.rssBeforeKb,
    peak_rss_kb: process.resourceUsage().maxRSS,
    layout: await layout(conn, opts.out),
  })
}

function scanTime(profile) {
  // The TABLE_SCAN operator's own time (the Parquet reader).
  let s = 0
  const walk = (n) => {
    if (n.operator_type === 'TABLE_SCAN') s += n.operator_timing || 0
    for (const c of n.children || []) walk(c)
  }
  walk(profile)
  return s
}

async function cmdRead() {
  if (!opts.file) die('read needs --file')
  const { conn, version } = await open()
  await conn.run('SET threads = 1')
  const sql = scanSql(opts.file)
  const rssBeforeKb = rssKb()
  let best = null
  let row
  let total = 0
  for (let i = 0; i < repeat; i++) {
    const t = await timed(async () => {
      row = await one(conn, sql)
    })
    total += t.seconds
    if (!best || t.seconds < best.seconds) best = t
  }
  // One more run under DuckDB's profiler (not timed above: profiling adds
  // its own overhead) for the scan operator's share of the query.
  const profileDir = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'duckdb-prof-'))
  const profilePath = path.join(profileDir, 'profile.json')
  await conn.run("PRAGMA enable_profiling = 'json'")
  await conn.run(`PRAGMA profiling_output = ${sqlString(profilePath)}`)
  await one(conn, sql)
  await conn.run('PRAGMA disable_profiling')
  const profile = JSON.parse(fs.readFileSync(profilePath, 'utf8'))
  fs.rmSync(profileDir, { recursive: true, force: true })
  const checks = checksOf(row)
  emit({
    phase: 'read',
    engine: 'duckdb',
    version,
    sql: sql.trim(),
    file: opts.file,
    rows: Number(checks.rows),
    repeat,
    read_s: best.seconds,
    read_cpu_s: best.cpuSeconds,
    read_mean_s: total / repeat,
    profiled_scan_operator_s: scanTime(profile),
    profiled_query_s: profile.latency,
    file_bytes: fs.statSync(opts.file).size,
    node_baseline_kb: nodeBaselineKb,
    rss_before_kb: rssBeforeKb,
    phase_peak_kb: best.peakKb,
    reader_kb: best.peakKb - rssBeforeKb,
    peak_rss_kb: process.resourceUsage().maxRSS,
    checks,
  })
}

async function cmdCheck() {
  if (!opts.ours || !opts.duck) die('check needs --ours and --duck')
  const { conn, version } = await open()
  const ours = checksOf(await one(conn, scanSql(opts.ours)))
  const duck = checksOf(await one(conn, scanSql(opts.duck)))
  const a = sqlString(opts.ours)
  const b = sqlString(opts.duck)
  const diff = async (x, y) =>
    Number(
      (await one(conn, `SELECT count(*) AS n FROM (FROM read_parquet(${x}) EXCEPT ALL FROM read_parquet(${y}))`)).n
    )
  const oursNotDuck = await diff(a, b)
  const duckNotOurs = await diff(b, a)
  // Same rows in the same order: event_id at each row position.
  const misordered = Number(
    (
      await one(
        conn,
        `SELECT count(*) AS n
         FROM (SELECT event_id, file_row_number FROM read_parquet(${a}, file_row_number = true)) x
         FULL JOIN (SELECT event_id, file_row_number FROM read_parquet(${b}, file_row_number = true)) y
           USING (file_row_number)
         WHERE x.event_id IS DISTINCT FROM y.event_id`
      )
    ).n
  )
  emit({
    phase: 'check',
    engine: 'duckdb',
    version,
    ours_file: opts.ours,
    duck_file: opts.duck,
    ours_checks: ours,
    duck_checks: duck,
    rows_in_ours_not_duck: oursNotDuck,
    rows_in_duck_not_ours: duckNotOurs,
    rows_out_of_order: misordered,
    ours_layout: await layout(conn, opts.ours),
    duck_layout: await layout(conn, opts.duck),
  })
}

const cmds = { write: cmdWrite, read: cmdRead, check: cmdCheck }
const cmd = cmds[positionals[0]]
if (!cmd) die('usage: duckdb_peer.mjs write|read|check [options]', 2)
await cmd()
