// We read the Parquet files DuckDB writes (docs/parquet-interop.md).
//
// The tables of gen_data.mjs are loaded into DuckDB exactly (its appender,
// typed values; checked by reading the table back), then written by
// `COPY ... TO (FORMAT parquet)` with every codec DuckDB writes, in
// PARQUET_VERSION V1 and V2, with dictionaries and with them pushed out
// (DICTIONARY_SIZE_LIMIT 1, which makes V2 write DELTA_* and
// BYTE_STREAM_SPLIT), and small row groups for the big tables. For each file:
//   - parquet_metadata and a walk over every page header record which codecs,
//     encodings and page types the file really holds;
//   - `hoglake parquet cat` prints every row equal to the input (DuckDB types
//     map back as docs/cli-parquet.md says; instants at the file's unit);
//   - `hoglake parquet convert dk.parquet ours.parquet` (schema inferred)
//     keeps every value (cat again) and numbers the field ids depth-first;
//     with `--schema` (the table's own ColumnDefs) every DuckDB type goes
//     back to its catalog type, values and the schema's field ids intact;
//   - BROTLI files (libbrotli) are read like every other codec's.
// At the end the encodings and page kinds the run covered are checked
// against what DuckDB can produce. hyparquet-writer (in tools/node_modules
// as a dependency of icebird) adds files with DATA_PAGE_V2 pages, which
// DuckDB never writes.
//
//   node read_duckdb.mjs          (INTEROP_SCALE=N, INTEROP_VERBOSE=1)
import fs from 'node:fs';
import path from 'node:path';
import {
  loadDuckDB, loadHyparquet, hoglake, workDir, parseJsonExact, parseJsonLines, expectedElements, canonModel, diffRows,
  Report, timer, SCALE, TOOLS, TS_DIGITS, INT_TYPES, parseDecimal, parseDate, parseTime, parseTimestamp, uuidToBytes, hex,
} from './lib.mjs';
import { tables } from './gen_data.mjs';
import { duckCanon, catRows } from './adapters.mjs';

const CODECS = ['zstd', 'snappy', 'gzip', 'uncompressed', 'lz4_raw', 'brotli']; // DuckDB's lz4 writes LZ4_RAW too
const elapsed = timer();
const report = new Report('read_duckdb');
const dir = workDir('read_duckdb');
const duckdb = await loadDuckDB();
const hp = await loadHyparquet();
const conn = await (await duckdb.DuckDBInstance.create(':memory:', { threads: '2' })).connect();
const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;
const timing = { copy: 0, cat: 0, convert: 0 };
const seen = { codecs: new Set(), encodings: new Set(), pages: new Set(), multiPage: 0, files: 0, zeroFlips: new Set() };

// ---- the model into DuckDB ----

function duckSqlType(col) {
  switch (col.type) {
    case 'boolean': return 'BOOLEAN';
    case 'int8': return 'TINYINT';
    case 'int16': return 'SMALLINT';
    case 'int': return 'INTEGER';
    case 'long': return 'BIGINT';
    case 'uint8': return 'UTINYINT';
    case 'uint16': return 'USMALLINT';
    case 'uint32': return 'UINTEGER';
    case 'uint64': return 'UBIGINT';
    case 'float': return 'FLOAT';
    case 'double': return 'DOUBLE';
    case 'decimal': return `DECIMAL(${col.type_params.precision},${col.type_params.scale})`;
    case 'date': return 'DATE';
    case 'time': return 'TIME';
    case 'timestamp_s': return 'TIMESTAMP_S';
    case 'timestamp_ms': return 'TIMESTAMP_MS';
    case 'timestamp': return 'TIMESTAMP';
    case 'timestamp_ns': return 'TIMESTAMP_NS';
    case 'timestamptz': return 'TIMESTAMPTZ';
    case 'string': return 'VARCHAR';
    case 'json': return 'JSON';
    case 'uuid': return 'UUID';
    case 'binary': return 'BLOB';
    case 'list': return `${duckSqlType(col.children[0])}[]`;
    case 'struct': return `STRUCT(${col.children.map((k) => `${ident(k.name)} ${duckSqlType(k)}`).join(', ')})`;
    case 'map': return `MAP(${duckSqlType(col.children[0])}, ${duckSqlType(col.children[1])})`;
  }
  throw new Error(`no DuckDB type for ${col.type}`);
}

function toDuck(col, v) {
  const V = duckdb;
  if (v === null || v === undefined) return null;
  switch (col.type) {
    case 'boolean': case 'float': case 'double': case 'string': case 'json': return v;
    case 'long': case 'uint64': return v;
    case 'decimal': return V.decimalValue(parseDecimal(v, col.type_params.scale), col.type_params.precision, col.type_params.scale);
    case 'date': return V.dateValue(parseDate(v));
    case 'time': return V.timeValue(parseTime(v));
    case 'timestamp_s': return V.timestampSecondsValue(parseTimestamp(v, 0));
    case 'timestamp_ms': return V.timestampMillisValue(parseTimestamp(v, 3));
    case 'timestamp': return V.timestampValue(parseTimestamp(v, 6));
    case 'timestamp_ns': return V.timestampNanosValue(parseTimestamp(v, 9));
    case 'timestamptz': return V.timestampTZValue(parseTimestamp(v, 6));
    case 'uuid': return V.uuidValue(BigInt('0x' + hex(uuidToBytes(v))));
    case 'binary': return V.blobValue(v);
    case 'list': return V.listValue(v.map((e) => toDuck(col.children[0], e)));
    case 'struct': return V.structValue(Object.fromEntries(col.children.map((k) => [k.name, toDuck(k, v[k.name])])));
    case 'map': return V.mapValue(v.map(([k, x]) => ({ key: toDuck(col.children[0], k), value: toDuck(col.children[1], x) })));
    default: if (INT_TYPES.has(col.type)) return Number(v);
  }
  throw new Error(`no DuckDB value for ${col.type}`);
}

async function load(t) {
  const name = `t_${t.name}`;
  await conn.run(`CREATE OR REPLACE TABLE ${name} (${t.columns.map((c) => `${ident(c.name)} ${duckSqlType(c)}`).join(', ')})`);
  const app = await conn.createAppender(name);
  const types = t.columns.map((_, i) => app.columnType(i));
  for (const row of t.rows) {
    t.columns.forEach((c, i) => {
      const v = toDuck(c, row[c.name]);
      if (v === null) app.appendNull();
      else app.appendValue(v, types[i]);
    });
    app.endRow();
  }
  app.closeSync();
  // The table must hold the model exactly, or the rest proves nothing.
  const got = (await conn.runAndReadAll(`SELECT * FROM ${name}`)).getRows()
    .map((r) => Object.fromEntries(t.columns.map((c, i) => [c.name, duckCanon(c, r[i])])));
  const probs = [];
  diffRows(t.columns, t.exact, got, 'DuckDB table', probs);
  report.check(`${t.name}: the input loads into DuckDB exactly`, probs);
  return name;
}

// ---- units of instants in a file ----

// Pairs the model's columns with a file's schema elements (pre-order; the
// file has the list/element and key_value/key/value shape) and records the
// unit digits of every timestamp column: digitsOf for catCanon.
function digitsFromElements(columns, elements, unitOf) {
  const want = expectedElements(columns);
  const map = new Map();
  if (elements.length !== want.length) throw new Error(`${elements.length} schema elements, expected ${want.length}`);
  want.forEach((w, i) => {
    if (w.col && TS_DIGITS[w.col.type] !== undefined) map.set(w.col, unitOf(elements[i]));
  });
  return (c) => map.get(c);
}
const UNIT_DIGITS = { MILLIS: 3, MICROS: 6, NANOS: 9 };
const duckUnit = (e) => { const m = /(MILLIS|MICROS|NANOS)=(Milli|Micro|Nano)Seconds\(\)/.exec(e.logical_type || ''); return m ? UNIT_DIGITS[m[1]] : undefined; };

function flattenInspect(node, out = []) {
  for (const k of node.children || []) { out.push(k); flattenInspect(k, out); }
  return out;
}

// ---- one DuckDB file ----

// DuckDB's dictionaries hold one zero: a column with both -0.0 and 0.0 comes
// out of DuckDB's writer with every zero as the first one it saw (DuckDB
// reads its own file that way too). The expected rows take the file's zero
// where the model's differs only in sign, and say how many.
function adjustZeros(exp, truth) {
  let n = 0;
  const go = (e, t) => {
    if ((e === '0' && t === '-0') || (e === '-0' && t === '0')) { n++; return t; }
    if (Array.isArray(e) && Array.isArray(t) && e.length === t.length) return e.map((x, i) => go(x, t[i]));
    if (e && t && typeof e === 'object' && typeof t === 'object' && !Array.isArray(e)) return Object.fromEntries(Object.keys(e).map((k) => [k, go(e[k], t[k])]));
    return e;
  };
  return [go(exp, truth), n];
}

// cat (of some columns) compared with the expected rows; returns the
// problems and cat's stderr when it failed.
function catProblems(t, file, digitsOf, expected, columns = t.columns) {
  const t0 = performance.now();
  const args = ['parquet', 'cat', file];
  if (columns !== t.columns) args.push('--columns', columns.map((c) => c.name).join(','));
  const r = hoglake(args);
  timing.cat += performance.now() - t0;
  const probs = [];
  if (r.status !== 0) return { probs: [`hoglake ${args.join(' ')}: exit ${r.status}: ${String(r.stderr).trim()}`], failed: String(r.stderr) };
  const got = catRows(columns, parseJsonLines(r.stdout), digitsOf);
  diffRows(columns, expected, got, 'cat', probs);
  const bad = got.find((o) => o.__order);
  if (bad) probs.push(`cat: column order ${bad.__order}`);
  return { probs };
}

function catAndCompare(t, file, digitsOf, expected, label) {
  const r = catProblems(t, file, digitsOf, expected);
  report.check(label, r.probs);
  return r;
}

// When a whole-file read fails on DELTA_BINARY_PACKED bit widths, the
// columns that trip it are found (one cat each) and the others read
// together, so one bug does not hide the rest of the file.
async function isolateDeltaWidth(t, file, digitsOf, expected, label) {
  const md = (await conn.runAndReadAll(`SELECT path_in_schema, type, encodings FROM parquet_metadata(${sqlStr(file)})`)).getRowObjectsJS();
  const suspect = new Set(md.filter((m) => m.type === 'INT32' && m.encodings.includes('DELTA_BINARY_PACKED')).map((m) => m.path_in_schema.split(', ')[0]));
  const failing = [], errors = new Set();
  for (const c of t.columns.filter((x) => suspect.has(x.name))) {
    const r = catProblems(t, file, digitsOf, expected, [c]);
    if (r.failed) { failing.push(c.name); errors.add(r.failed.replace(/^.*?: (row group)/, '$1').trim()); } else if (r.probs.length) report.check(`${label}: column ${c.name} alone`, r.probs);
  }
  const rest = t.columns.filter((c) => !failing.includes(c.name));
  report.check(`${label}: the INT32 DELTA_BINARY_PACKED columns that cat refuses`, failing.length ? [`cat refuses ${failing.join(', ')} (${[...errors].join('; ')})`] : []);
  if (rest.length) report.check(`${label}: cat reads every value of the other ${rest.length} columns`, catProblems(t, file, digitsOf, expected, rest).probs);
}

async function checkDuckFile(t, file, v) {
  const label = `${t.name} ${v.codec} ${v.version}${v.nodict ? ' nodict' : ''}`;
  // what the file holds
  const md = (await conn.runAndReadAll(`SELECT path_in_schema, compression, encodings FROM parquet_metadata(${sqlStr(file)})`)).getRowObjectsJS();
  for (const m of md) {
    seen.codecs.add(m.compression);
    for (const e of m.encodings.split(', ')) seen.encodings.add(`${v.version}:${e}`);
  }
  const buf = fs.readFileSync(file);
  const meta = hp.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  for (const c of hp.walkPages(buf, meta)) {
    const data = c.pages.filter((p) => p.type !== 'DICTIONARY_PAGE');
    if (data.length > 1) seen.multiPage++;
    for (const p of c.pages) seen.pages.add(`${p.type}/${p.encoding}`);
  }
  seen.files++;
  const schema = (await conn.runAndReadAll(`SELECT name, logical_type FROM parquet_schema(${sqlStr(file)})`)).getRowObjectsJS().slice(1);
  const digitsOf = digitsFromElements(t.columns, schema, duckUnit);

  // what DuckDB reads back from its own file: the model, up to zero signs
  const truth = (await conn.runAndReadAll(`SELECT * FROM read_parquet(${sqlStr(file)})`)).getRows()
    .map((row) => Object.fromEntries(t.columns.map((c, i) => [c.name, duckCanon(c, row[i])])));
  const [expected, flipped] = adjustZeros(t.exact, truth);
  const tp = [];
  diffRows(t.columns, expected, truth, 'DuckDB reading its own file', tp);
  report.check(`${label}: DuckDB reads its own file back`, tp);
  if (flipped) seen.zeroFlips.add(`${t.name} ${v.version}${v.nodict ? ' nodict' : ''}: ${flipped}`);

  // we read it
  const whole = catAndCompare(t, file, digitsOf, expected, `${label}: hoglake parquet cat reads every value`);
  if (whole.failed && /DELTA_BINARY_PACKED bit width/.test(whole.failed) && v.codec === 'zstd')
    await isolateDeltaWidth(t, file, digitsOf, expected, label);

  // we convert it (schema inferred) and the values survive; the codec
  // matters only to reading, which cat covered, so once per layout
  if (v.codec !== 'zstd') return;
  const out = file.replace(/\.parquet$/, '.ours.parquet');
  let t0 = performance.now();
  const r = hoglake(['parquet', 'convert', file, out, '--force']);
  timing.convert += performance.now() - t0;
  if (r.status !== 0) {
    report.check(`${label}: hoglake parquet convert`, [`exit ${r.status}: ${String(r.stderr).trim()}`]);
    return;
  }
  const insp = parseJsonExact(hoglake(['parquet', 'inspect', out, '--json']).stdout);
  const els = flattenInspect(insp.schema);
  // DuckDB wrote no field ids: ours are depth-first from 1
  const noIds = JSON.parse(JSON.stringify(t.columns, (k, x) => (k === 'field_id' ? undefined : x)));
  const want = expectedElements(noIds);
  const idProbs = [];
  if (els.length !== want.length) idProbs.push(`${els.length} schema elements, expected ${want.length}`);
  else want.forEach((w, i) => {
    const got = els[i].field_id === null ? null : Number(els[i].field_id.text ?? els[i].field_id);
    if (got !== w.field_id) idProbs.push(`${w.path.join('.')}: field_id ${got}, expected ${w.field_id}`);
  });
  report.check(`${label}: converted file numbers field ids depth-first`, idProbs);
  const oursDigitsOf = digitsFromElements(t.columns, els, (e) => UNIT_DIGITS[e.logical_type?.unit]);
  catAndCompare(t, out, oursDigitsOf, expected, `${label}: values survive hoglake parquet convert`);

  // and with the table's own definition (--schema): every DuckDB type is
  // taken back to the catalog type it came from, field ids as given
  const out2 = file.replace(/\.parquet$/, '.schema.parquet');
  t0 = performance.now();
  const r2 = hoglake(['parquet', 'convert', file, out2, '--schema', '@' + t.schemaFile, '--force']);
  timing.convert += performance.now() - t0;
  if (r2.status !== 0) {
    report.check(`${label}: hoglake parquet convert --schema`, [`exit ${r2.status}: ${String(r2.stderr).trim()}`]);
    return;
  }
  const els2 = flattenInspect(parseJsonExact(hoglake(['parquet', 'inspect', out2, '--json']).stdout).schema);
  const want2 = expectedElements(t.columns);
  const idProbs2 = [];
  if (els2.length !== want2.length) idProbs2.push(`${els2.length} schema elements, expected ${want2.length}`);
  else want2.forEach((w, i) => {
    const got = els2[i].field_id === null ? null : Number(els2[i].field_id.text);
    if (got !== w.field_id) idProbs2.push(`${w.path.join('.')}: field_id ${got}, expected ${w.field_id}`);
  });
  report.check(`${label}: convert --schema keeps the schema's field ids`, idProbs2);
  catAndCompare(t, out2, undefined, expected, `${label}: values survive hoglake parquet convert --schema`);
}

// ---- DATA_PAGE_V2 from hyparquet-writer ----

async function pageV2(t) {
  let hw;
  try {
    hw = await import(path.join(TOOLS, 'node_modules/hyparquet-writer/src/index.js'));
  } catch (e) {
    report.note(`hyparquet-writer is not in ${TOOLS}/node_modules (${e.message}): no DATA_PAGE_V2 files`);
    return;
  }
  // the types hyparquet-writer writes exactly from JS values
  const map = { boolean: 'BOOLEAN', int: 'INT32', long: 'INT64', float: 'FLOAT', double: 'DOUBLE', string: 'STRING', json: 'JSON', binary: 'BYTE_ARRAY' };
  // Booleans left out: hyparquet-writer 0.6.1 prefixes RLE boolean values
  // with their count where the format wants their byte length (DuckDB and
  // hyparquet ignore the prefix; we refuse the page as truncated).
  const cols = t.columns.filter((c) => map[c.type] && c.type !== 'json' && c.type !== 'boolean');
  const rows = t.rows;
  const columnData = cols.map((c) => ({
    name: c.name, type: map[c.type], nullable: c.nullable !== false,
    data: rows.map((r) => { const v = r[c.name]; return v === null ? null : c.type === 'int' ? Number(v) : v; }),
  }));
  for (const compressed of [true, false]) {
    const file = path.join(dir, `hyw.${compressed ? 'snappy' : 'uncompressed'}.parquet`);
    const probs = [];
    try {
      fs.writeFileSync(file, Buffer.from(hw.parquetWriteBuffer({ columnData, compressed, rowGroupSize: 128 })));
    } catch (e) {
      report.note(`hyparquet-writer cannot write the scalar columns: ${e.message}`);
      return;
    }
    const buf = fs.readFileSync(file);
    const meta = hp.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    const kinds = new Set();
    for (const c of hp.walkPages(buf, meta)) for (const p of c.pages) kinds.add(`${p.type}/${p.encoding}`);
    if (![...kinds].some((k) => k.startsWith('DATA_PAGE_V2'))) probs.push(`no DATA_PAGE_V2 pages (${[...kinds]})`);
    for (const k of kinds) seen.pages.add(`${k} (hyparquet-writer)`);
    const r = hoglake(['parquet', 'cat', file]);
    if (r.status !== 0) probs.push(`cat: exit ${r.status}: ${String(r.stderr).trim()}`);
    else {
      const exact = rows.map((row) => Object.fromEntries(cols.map((c) => [c.name, canonModel(c, row[c.name])])));
      diffRows(cols, exact, catRows(cols, parseJsonLines(r.stdout)), 'cat', probs);
    }
    report.check(`hyparquet-writer ${compressed ? 'snappy' : 'uncompressed'} (${meta.row_groups.length} row groups, ${[...kinds].join(' ')}): hoglake parquet cat reads every value`, probs);
  }
}

// ---- main ----

let scalarsTable;
for (const t of tables(SCALE)) {
  if (t.name === 'scalars') scalarsTable = t;
  if (t.light) continue; // our writer's dictionary fallback: read_ours.mjs
  t.schemaFile = path.join(dir, `${t.name}.schema.json`);
  fs.writeFileSync(t.schemaFile, JSON.stringify(t.columns));
  t.exact = t.rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, canonModel(c, r[c.name])])));
  let tableName;
  try {
    tableName = await load(t);
  } catch (e) {
    report.check(`${t.name}: load into DuckDB`, [e.stack]);
    continue;
  }
  const big = t.rows.length > 1000;
  const rg = t.name === 'multi_rg' ? ', ROW_GROUP_SIZE 2048' : '';
  const variants = [];
  for (const codec of CODECS) {
    variants.push({ codec, version: 'V1' }, { codec, version: 'V2' });
    // dictionaries pushed out: PLAIN in V1; DELTA_* and BYTE_STREAM_SPLIT in V2
    if (!big || codec === 'zstd' || codec === 'uncompressed') variants.push({ codec, version: 'V2', nodict: true });
    if (!big && codec === 'zstd') variants.push({ codec, version: 'V1', nodict: true });
  }
  for (const v of variants) {
    const file = path.join(dir, `${t.name}.${v.codec}.${v.version}${v.nodict ? '.nodict' : ''}.parquet`);
    const opts = `FORMAT parquet, COMPRESSION ${v.codec}, PARQUET_VERSION ${v.version}${rg}${v.nodict ? ', DICTIONARY_SIZE_LIMIT 1' : ''}`;
    try {
      const t0 = performance.now();
      await conn.run(`COPY ${tableName} TO ${sqlStr(file)} (${opts})`);
      timing.copy += performance.now() - t0;
      await checkDuckFile(t, file, v);
    } catch (e) {
      report.check(`${t.name} ${v.codec} ${v.version}: checks ran`, [e.stack]);
    }
  }
  console.log(`${t.name}: ${variants.length} DuckDB files (${elapsed()})`);
}
await pageV2(scalarsTable);

// What the run covered, against what DuckDB can write.
{
  const probs = [];
  const want = ['V1:PLAIN', 'V1:PLAIN_DICTIONARY', 'V2:PLAIN', 'V2:RLE_DICTIONARY', 'V2:DELTA_BINARY_PACKED', 'V2:DELTA_LENGTH_BYTE_ARRAY', 'V2:BYTE_STREAM_SPLIT'];
  for (const e of want) if (!seen.encodings.has(e)) probs.push(`no DuckDB file used ${e}`);
  for (const c of ['ZSTD', 'SNAPPY', 'GZIP', 'UNCOMPRESSED', 'LZ4_RAW']) if (!seen.codecs.has(c)) probs.push(`no DuckDB file used ${c}`);
  if (![...seen.pages].some((p) => p.startsWith('DATA_PAGE_V2'))) probs.push('no file had DATA_PAGE_V2 pages');
  report.check('coverage: codecs, encodings and page kinds', probs);
  console.log(`DuckDB files: ${seen.files}; codecs ${[...seen.codecs].sort().join(' ')}`);
  console.log(`chunk encodings: ${[...seen.encodings].sort().join(' ')}`);
  console.log(`page kinds: ${[...seen.pages].sort().join(', ')}; chunks with several data pages: ${seen.multiPage}`);
  if (seen.zeroFlips.size) console.log(`note DuckDB's dictionaries wrote zeros with the other sign (rows adjusted, per table/version, counted over all codecs once each): ${[...seen.zeroFlips].join('; ')}`);
  if (!seen.encodings.has('V2:DELTA_BYTE_ARRAY')) console.log('note DELTA_BYTE_ARRAY: no DuckDB file uses it (DuckDB does not write it); covered by the unit tests');
}
console.log(`time: ${elapsed()} total; DuckDB COPY ${(timing.copy / 1000).toFixed(1)}s, cat ${(timing.cat / 1000).toFixed(1)}s, convert ${(timing.convert / 1000).toFixed(1)}s`);
report.finish(dir);
