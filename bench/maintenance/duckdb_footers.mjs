// The DuckDB peer of hydrate_bench.sh: read the footers of the listed
// Parquet files and their column statistics (parquet_metadata: a row per
// column chunk, with its min, max and null count), timed inside DuckDB so
// Node's start-up does not count. Prints one JSON object: {seconds,
// cpu_seconds, files, chunks} (cpu_seconds: the process's CPU time during
// the query).
//
//   node duckdb_footers.mjs --files LIST [--threads N]
//
// LIST holds one path per line. threads defaults to 1, as the hydrator
// settles one file at a time. @duckdb/node-api comes from
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
  options: { files: { type: 'string' }, threads: { type: 'string', default: '1' } },
})
if (!values.files) {
  process.stderr.write('usage: node duckdb_footers.mjs --files LIST [--threads N]\n')
  process.exit(2)
}
const quote = (s) => `'${s.replaceAll("'", "''")}'`
const inputs = fs.readFileSync(values.files, 'utf8').split('\n').filter((l) => l.length > 0)
const instance = await duckdb.DuckDBInstance.create(':memory:', {
  threads: String(Number(values.threads)),
})
const conn = await instance.connect()
const list = `[${inputs.map(quote).join(', ')}]`
const cpu0 = process.cpuUsage()
const t0 = process.hrtime.bigint()
const reader = await conn.runAndReadAll(
  `SELECT count(DISTINCT file_name)::BIGINT AS files, count(*)::BIGINT AS chunks,
          count(stats_min_value)::BIGINT AS with_min
   FROM parquet_metadata(${list})`,
)
const t1 = process.hrtime.bigint()
const cpu = process.cpuUsage(cpu0)
const row = reader.getRowObjects()[0]
process.stdout.write(
  JSON.stringify({
    seconds: Number(t1 - t0) / 1e9,
    cpu_seconds: (cpu.user + cpu.system) / 1e6,
    files: Number(row.files),
    chunks: Number(row.chunks),
    with_min: Number(row.with_min),
  }) + '\n',
)
