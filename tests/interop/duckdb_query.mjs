// Runs one SQL query in DuckDB (in memory, UTC) and prints each result row
// on a line, its values as DuckDB's own VARCHAR casts joined by tabs (NULL
// as \N). Integration tests use it to have an independent reader look at
// the Parquet files hoglake wrote, and (a COPY statement, which prints
// nothing) to have an independent writer produce files hoglake publishes.
//
//   node duckdb_query.mjs "SELECT ... FROM read_parquet([...])"
import { loadDuckDB } from './lib.mjs';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node duckdb_query.mjs SQL');
  process.exit(2);
}
const duckdb = await loadDuckDB();
const conn = await (await duckdb.DuckDBInstance.create(':memory:', { threads: '1' })).connect();
await conn.run("SET TimeZone = 'UTC'");
if (/^\s*copy\s/i.test(sql)) {
  await conn.run(sql);
  process.exit(0);
}
const reader = await conn.runAndReadAll(`SELECT * FROM (${sql})`);
const names = reader.columnNames();
const cast = names.map((n) => `CAST("${n.replaceAll('"', '""')}" AS VARCHAR)`).join(', ');
const text = await conn.runAndReadAll(`SELECT ${cast} FROM (${sql})`);
for (const row of text.getRows())
  process.stdout.write(row.map((v) => (v === null ? '\\N' : String(v))).join('\t') + '\n');
