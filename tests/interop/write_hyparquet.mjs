// Writes, with hyparquet-writer (an independent writer), the files
// tests/integration/test_pq_foreign_types.c needs:
//   unknown    columns u32 (INT32) and ubin (BYTE_ARRAY) of the null (UNKNOWN)
//              logical type, holding only nulls, beside an int column i: the
//              shape Arrow's null type takes in Parquet;
//   bad_utf8   a UTF8-annotated column s whose second value is not UTF-8
//              (DuckDB refuses to read it).
//
//   node write_hyparquet.mjs unknown|bad_utf8 OUT.parquet
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS } from './lib.mjs';

const [kind, out] = process.argv.slice(2);
const hw = await import(path.join(TOOLS, 'node_modules/hyparquet-writer/src/index.js'));
const rows = 5;
const nulls = Array(rows).fill(null);
const files = {
  unknown: {
    columnData: [
      { name: 'u32', data: nulls },
      { name: 'i', data: Int32Array.from({ length: rows }, (_, k) => 10 * k - 20) },
      { name: 'ubin', data: nulls },
    ],
    schema: [
      { name: 'root', num_children: 3 },
      { name: 'u32', type: 'INT32', repetition_type: 'OPTIONAL', logical_type: { type: 'NULL' } },
      { name: 'i', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'ubin', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', logical_type: { type: 'NULL' } },
    ],
  },
  bad_utf8: {
    columnData: [{ name: 's', data: [Buffer.from('ok'), Buffer.from([0x62, 0x61, 0x64, 0xff]), null] }],
    schema: [
      { name: 'root', num_children: 1 },
      { name: 's', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' },
    ],
  },
};
if (!files[kind] || !out) {
  console.error('usage: node write_hyparquet.mjs unknown|bad_utf8 OUT.parquet');
  process.exit(2);
}
fs.writeFileSync(out, Buffer.from(hw.parquetWriteBuffer(files[kind])));
