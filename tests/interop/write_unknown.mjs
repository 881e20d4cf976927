// Writes, with hyparquet-writer (an independent writer), a Parquet file whose
// columns u32 (INT32) and ubin (BYTE_ARRAY) carry the null (UNKNOWN) logical
// type and hold only nulls, beside an int column i: the shape Arrow's null
// type takes in Parquet. tests/integration/test_pq_foreign_types.c converts it.
//
//   node write_unknown.mjs OUT.parquet
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS } from './lib.mjs';

const out = process.argv[2];
if (!out) {
  console.error('usage: node write_unknown.mjs OUT.parquet');
  process.exit(2);
}
const hw = await import(path.join(TOOLS, 'node_modules/hyparquet-writer/src/index.js'));
const rows = 5;
const nulls = Array(rows).fill(null);
const columnData = [
  { name: 'u32', data: nulls },
  { name: 'i', data: Int32Array.from({ length: rows }, (_, k) => 10 * k - 20) },
  { name: 'ubin', data: nulls },
];
const schema = [
  { name: 'root', num_children: 3 },
  { name: 'u32', type: 'INT32', repetition_type: 'OPTIONAL', logical_type: { type: 'NULL' } },
  { name: 'i', type: 'INT32', repetition_type: 'REQUIRED' },
  { name: 'ubin', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', logical_type: { type: 'NULL' } },
];
fs.writeFileSync(out, Buffer.from(hw.parquetWriteBuffer({ columnData, schema })));
