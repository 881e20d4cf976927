// Files other writers write, read as DuckDB reads them. parquet-rs (through
// parquet-wasm, from Arrow tables built with apache-arrow) and parquetjs
// (@dsnp/parquetjs) write tables of every type they have, under each of their
// writer settings (page versions, codecs, encodings, dictionary on and off,
// small pages and row groups, statistics off). For every file:
//   - `hoglake parquet cat` reads it (no file DuckDB reads is refused);
//   - `hoglake parquet convert` writes it again, and DuckDB's read of our
//     output, cast to the types DuckDB gives the input, equals DuckDB's read
//     of the input, row by row (no value read differently), unless the file
//     holds a type the catalog has none for (listed in NO_CATALOG_TYPE), which
//     convert must refuse naming it.
// DuckDB's own files and hyparquet-writer's are read_duckdb.mjs's.
//
//   node read_writers.mjs          (INTEROP_VERBOSE=1, INTEROP_KEEP=1)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { loadDuckDB, hoglake, workDir, Report, timer, TOOLS } from './lib.mjs';

const toolsRequire = createRequire(path.join(TOOLS, 'package.json'));
const arrow = toolsRequire('apache-arrow');
const pw = toolsRequire('parquet-wasm/node');
const parquetjs = toolsRequire('@dsnp/parquetjs');

const elapsed = timer();
const report = new Report('read_writers');
const dir = workDir('read_writers');
const duckdb = await loadDuckDB();
const conn = await (await duckdb.DuckDBInstance.create(':memory:', { threads: '1' })).connect();
await conn.run("SET TimeZone = 'UTC'");
const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;

// Parquet types the catalog has no type for: convert refuses a file holding
// one, naming it (docs/cli-parquet.md); cat still reads it.
const NO_CATALOG_TYPE = ['TIME(NANOS)', 'TIMESTAMP(isAdjustedToUTC=true, NANOS)', 'INTERVAL'];

// ---- the oracle ----

async function duckTypes(file) {
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlStr(file)})`);
  return r.getRows().map((row) => ({ name: String(row[0]), type: String(row[1]) }));
}

async function duckText(file, cols) {
  const sel = cols.map((c) => `CAST(${c.cast ?? ident(c.name)} AS VARCHAR)`).join(', ');
  const r = await conn.runAndReadAll(`SELECT ${sel} FROM read_parquet(${sqlStr(file)})`);
  return r.getRows().map((row) => row.map((v) => (v === null ? '\\N' : String(v))));
}

// `cat` reads the file, convert writes it again and DuckDB reads both alike.
// A file DuckDB does not read (a codec it lacks) must cat as its twin, the
// same table written with the writer's defaults, which DuckDB checked.
async function check(label, file, twin) {
  const probs = [];
  const cat = hoglake(['parquet', 'cat', file]);
  if (cat.status !== 0) probs.push(`cat: exit ${cat.status}: ${String(cat.stderr).trim()}`);
  let types, want;
  try {
    types = await duckTypes(file);
    want = await duckText(file, types);
  } catch (e) {
    const same = twin && cat.status === 0 && hoglake(['parquet', 'cat', twin]).stdout === cat.stdout;
    if (!same) probs.push(`DuckDB does not read it (${e.message.split('\n')[0]}) and cat differs from its twin's`);
    seen.duckdbRefused.add(label);
    report.check(`${label}: read as its twin (DuckDB does not read it)`, probs);
    return;
  }
  const out = `${file}.converted.parquet`;
  const conv = hoglake(['parquet', 'convert', file, out, '--unknown-as', 'string']);
  if (conv.status !== 0) {
    const why = String(conv.stderr).trim();
    const allowed = NO_CATALOG_TYPE.find((t) => why.includes(`${t} has no catalog type`));
    if (allowed) seen.refused.add(`${label}: ${allowed}`);
    else probs.push(`convert: exit ${conv.status}: ${why}`);
  } else {
    // Our output read through the input's types, so that a timestamp
    // DuckDB types TIMESTAMP in the input and TIMESTAMPTZ in ours (the
    // same instant) compares as the same text.
    const got = await duckText(out, types.map((t) => ({ ...t, cast: `CAST(${ident(t.name)} AS ${t.type})` })));
    if (got.length !== want.length) probs.push(`${want.length} rows in, ${got.length} out`);
    for (let i = 0; i < Math.min(got.length, want.length) && probs.length < 12; i++)
      for (let k = 0; k < types.length; k++)
        if (got[i][k] !== want[i][k])
          probs.push(`row ${i} ${types[k].name} (${types[k].type}): DuckDB reads ${want[i][k]}, our conversion ${got[i][k]}`);
  }
  report.check(`${label}: read as DuckDB reads it`, probs);
}

const seen = { refused: new Set(), duckdbRefused: new Set(), files: 0 };

// ---- parquet-rs, through parquet-wasm ----

const N = 300; // rows: several pages at the small page size
const nth = (k, every) => k % every === every - 1; // a null now and then

function arrowTables() {
  const A = arrow;
  const col = (type, f, nulls = 7) => A.vectorFromArray(Array.from({ length: N }, (_, k) => (nth(k, nulls) ? null : f(k))), type);
  const big = (k) => BigInt(k) * 7919n - 1000000n;
  const ms = (k) => Date.UTC(2024, 0, 1) + k * 3_600_123;
  const scalars = new A.Table({
    i8: col(new A.Int8(), (k) => (k % 256) - 128),
    i16: col(new A.Int16(), (k) => k * 211 - 32768),
    i32: col(new A.Int32(), (k) => k * 7_000_001 - 2147483648),
    i64: col(new A.Int64(), big),
    u8: col(new A.Uint8(), (k) => k % 256),
    u16: col(new A.Uint16(), (k) => (k * 223) % 65536),
    u32: col(new A.Uint32(), (k) => (k * 14_316_557) % 4294967296),
    u64: col(new A.Uint64(), (k) => BigInt(k) * 61_489_146_912_365_172n),
    f16: col(new A.Float16(), (k) => (k % 40) / 4 - 5),
    f32: col(new A.Float32(), (k) => Math.fround(k / 7 - 20)),
    f64: col(new A.Float64(), (k) => (k % 50 === 0 ? -0 : k * 1e-3 - 0.1)),
    b: col(new A.Bool(), (k) => k % 3 === 0),
    s: col(new A.Utf8(), (k) => (k % 5 === 0 ? '' : `s${k}-é-${'x'.repeat(k % 13)}`)),
    ls: col(new A.LargeUtf8(), (k) => `large ${k}`),
    bin: col(new A.Binary(), (k) => Uint8Array.from({ length: k % 9 }, (_, j) => (j * k) & 255)),
    fsb: col(new A.FixedSizeBinary(4), (k) => Uint8Array.of(k & 255, 1, 2, 255)),
    d32: col(new A.DateDay(), (k) => new Date(ms(k) * 24)),
    tms: col(new A.TimeMillisecond(), (k) => (k * 123_457) % 86_400_000),
    tus: col(new A.TimeMicrosecond(), (k) => BigInt((k * 123_456_789) % 86_400_000_000)),
    ts_s: col(new A.TimestampSecond(), (k) => ms(k) - (ms(k) % 1000)),
    ts_ms: col(new A.TimestampMillisecond(), (k) => ms(k)),
    ts_us: col(new A.TimestampMicrosecond(), (k) => ms(k)),
    ts_ns: col(new A.TimestampNanosecond(), (k) => ms(k)),
    tz_ms: col(new A.TimestampMillisecond('UTC'), (k) => ms(k)),
    tz_us: col(new A.TimestampMicrosecond('UTC'), (k) => ms(k)),
    dict: col(new A.Dictionary(new A.Utf8(), new A.Int32()), (k) => ['red', 'green', 'blue'][k % 3]),
    nul: A.makeVector({ type: new A.Null(), length: N }),
  });
  const nested = new A.Table({
    li: col(new A.List(new A.Field('item', new A.Int32(), true)), (k) => Array.from({ length: k % 4 }, (_, j) => (j === 2 ? null : k + j))),
    lst: col(
      new A.List(new A.Field('item', new A.Struct([new A.Field('a', new A.Int64(), true), new A.Field('b', new A.Utf8(), true)]), true)),
      (k) => Array.from({ length: k % 3 }, (_, j) => ({ a: BigInt(k * 10 + j), b: j ? `b${k}` : null })),
    ),
    st: col(
      new A.Struct([new A.Field('x', new A.Float64(), true), new A.Field('y', new A.List(new A.Field('item', new A.Utf8(), true)), true)]),
      (k) => ({ x: k / 4, y: k % 4 === 0 ? null : [`y${k}`, 'z'] }),
    ),
    m: col(
      new A.Map_(new A.Field('entries', new A.Struct([new A.Field('key', new A.Utf8(), false), new A.Field('value', new A.Int64(), true)]), false)),
      (k) => new Map(Array.from({ length: k % 3 }, (_, j) => [`k${j}`, j === 1 ? null : BigInt(k * j)])),
    ),
    ll: col(new A.List(new A.Field('item', new A.List(new A.Field('item', new A.Int16(), true)), true)), (k) => (k % 5 ? [[k % 100, -1], [], [7]] : [])),
  });
  const refused = new A.Table({
    id: col(new A.Int32(), (k) => k, 1000),
    tns: col(new A.TimeNanosecond(), (k) => BigInt(k) * 1_000_000_007n),
    tz_ns: col(new A.TimestampNanosecond('UTC'), (k) => ms(k)),
  });
  return { scalars, nested, refused };
}

function pwProps(v) {
  let b = new pw.WriterPropertiesBuilder();
  if (v.version) b = b.setWriterVersion(v.version);
  if (v.codec !== undefined) b = b.setCompression(v.codec);
  if (v.dictionary === false) b = b.setDictionaryEnabled(false);
  if (v.pageBytes) b = b.setDataPageSizeLimit(v.pageBytes);
  if (v.rowGroup) b = b.setMaxRowGroupSize(v.rowGroup);
  if (v.stats !== undefined) b = b.setStatisticsEnabled(v.stats);
  for (const [c, e] of Object.entries(v.encodings ?? {})) b = b.setColumnEncoding(c, e).setColumnDictionaryEnabled(c, false);
  return b.build();
}

function parquetRs() {
  const E = pw.Encoding;
  const tables = arrowTables();
  const variants = [
    { name: 'v1-default' },
    { name: 'v2-zstd', version: pw.WriterVersion.V2, codec: pw.Compression.ZSTD },
    { name: 'v1-snappy-nodict', codec: pw.Compression.SNAPPY, dictionary: false },
    { name: 'v2-gzip-small-pages', version: pw.WriterVersion.V2, codec: pw.Compression.GZIP, pageBytes: 256, rowGroup: 70 },
    { name: 'v1-brotli-stats-off', codec: pw.Compression.BROTLI, stats: pw.EnabledStatistics.None },
    { name: 'v1-lz4-hadoop', codec: pw.Compression.LZ4 },
    { name: 'v2-lz4raw-page-stats', version: pw.WriterVersion.V2, codec: pw.Compression.LZ4_RAW, stats: pw.EnabledStatistics.Page, pageBytes: 512 },
    {
      name: 'v2-delta-encodings', version: pw.WriterVersion.V2,
      encodings: { i32: E.DELTA_BINARY_PACKED, i64: E.DELTA_BINARY_PACKED, u16: E.DELTA_BINARY_PACKED, s: E.DELTA_BYTE_ARRAY, ls: E.DELTA_LENGTH_BYTE_ARRAY, bin: E.DELTA_LENGTH_BYTE_ARRAY, ts_us: E.DELTA_BINARY_PACKED },
    },
    { name: 'v1-byte-stream-split', encodings: { f32: E.BYTE_STREAM_SPLIT, f64: E.BYTE_STREAM_SPLIT, i32: E.BYTE_STREAM_SPLIT, fsb: E.BYTE_STREAM_SPLIT } },
  ];
  const files = [];
  for (const [tname, table] of Object.entries(tables))
    for (const v of variants) {
      if (tname !== 'scalars' && v.encodings) continue; // the encodings name scalar columns
      const file = path.join(dir, `parquet-rs.${tname}.${v.name}.parquet`);
      try {
        const bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), pwProps(v));
        fs.writeFileSync(file, bytes);
        files.push({ label: `parquet-rs ${tname} ${v.name}`, file, twin: path.join(dir, `parquet-rs.${tname}.v1-default.parquet`) });
      } catch (e) {
        report.check(`parquet-rs ${tname} ${v.name}: parquet-wasm writes it`, [String(e.message ?? e)]);
      }
    }
  return files;
}

// ---- parquetjs ----

async function parquetJs() {
  const P = parquetjs;
  const fields = {
    name: { type: 'UTF8' },
    opt: { type: 'UTF8', optional: true },
    i8: { type: 'INT_8', optional: true },
    i16: { type: 'INT_16' },
    i32: { type: 'INT32', optional: true },
    i64: { type: 'INT64', optional: true },
    u8: { type: 'UINT_8', optional: true },
    u32: { type: 'UINT_32' },
    u64: { type: 'UINT_64', optional: true },
    f: { type: 'FLOAT', optional: true },
    d: { type: 'DOUBLE' },
    ok: { type: 'BOOLEAN', optional: true },
    day: { type: 'DATE', optional: true },
    tms: { type: 'TIME_MILLIS', optional: true },
    tus: { type: 'TIME_MICROS', optional: true },
    ts: { type: 'TIMESTAMP_MILLIS', optional: true },
    tsu: { type: 'TIMESTAMP_MICROS', optional: true },
    dec: { type: 'DECIMAL', precision: 9, scale: 2, optional: true },
    doc: { type: 'JSON', optional: true },
    raw: { type: 'BYTE_ARRAY', optional: true },
    tags: { type: 'UTF8', repeated: true },
    stock: { repeated: true, fields: { qty: { type: 'INT32' }, where: { type: 'UTF8', optional: true } } },
    addr: { optional: true, fields: { city: { type: 'UTF8' }, zip: { type: 'INT32', optional: true } } },
  };
  const row = (k) => ({
    name: `n${k}`,
    opt: k % 4 ? `o${k}` : undefined,
    i8: k % 5 ? (k % 256) - 128 : undefined,
    i16: k * 13 - 1000,
    i32: k % 6 ? k * 1_000_003 - 7 : undefined,
    i64: k % 7 ? BigInt(k) * 123_456_789_012n - 5n : undefined,
    u8: k % 256,
    u32: (k * 14_316_557) % 4294967296,
    u64: BigInt(k) * 61_489_146_912_365_172n,
    f: Math.fround(k / 8 - 3),
    d: k * 0.1 - 7,
    ok: k % 3 ? k % 2 === 0 : undefined,
    day: new Date(Date.UTC(2020, 1, 29) + k * 86_400_000),
    tms: (k * 1_234_567) % 86_400_000,
    tus: BigInt((k * 123_456_789) % 86_400_000_000),
    ts: new Date(Date.UTC(2024, 5, 1) + k * 3_600_007),
    tsu: BigInt(Date.UTC(2024, 5, 1)) * 1000n + BigInt(k) * 1_000_003n,
    dec: k % 3 ? (k * 12.34) % 9999 : undefined,
    doc: k % 4 ? { k, list: [1, 'two'] } : undefined,
    raw: k % 3 ? Buffer.from([k & 255, 0, 255]) : undefined,
    tags: Array.from({ length: k % 4 }, (_, j) => `t${j}`),
    stock: Array.from({ length: k % 3 }, (_, j) => ({ qty: k + j, where: j ? `w${j}` : undefined })),
    addr: k % 5 ? { city: `c${k}`, zip: k % 2 ? k : undefined } : undefined,
  });
  const variants = [
    { name: 'v1-uncompressed', opts: {} },
    { name: 'v2-pages', opts: { useDataPageV2: true } },
    { name: 'v1-gzip', compression: 'GZIP', opts: {} },
    { name: 'v2-snappy', compression: 'SNAPPY', opts: { useDataPageV2: true } },
    { name: 'v1-brotli-small-groups', compression: 'BROTLI', opts: { rowGroupSize: 17, pageSize: 300 } },
    // RLE values (booleans). parquetjs also writes RLE for INT32 values,
    // which the format does not allow; DuckDB and we refuse those.
    { name: 'v1-rle-booleans', encoding: { ok: 'RLE' }, opts: {} },
  ];
  const files = [];
  for (const v of variants) {
    const spec = {};
    for (const [k, f] of Object.entries(fields)) {
      const g = { ...f };
      if (v.compression && !g.fields) g.compression = v.compression;
      if (v.encoding?.[k]) g.encoding = v.encoding[k];
      if (g.encoding === 'RLE') g.typeLength = g.type === 'BOOLEAN' ? 1 : 32; // parquetjs wants the bit width
      spec[k] = g;
    }
    const file = path.join(dir, `parquetjs.${v.name}.parquet`);
    try {
      const w = await P.ParquetWriter.openFile(new P.ParquetSchema(spec), file, v.opts);
      for (let k = 0; k < 120; k++) await w.appendRow(row(k));
      await w.close();
      files.push({ label: `parquetjs ${v.name}`, file, twin: path.join(dir, 'parquetjs.v1-uncompressed.parquet') });
    } catch (e) {
      report.check(`parquetjs ${v.name}: @dsnp/parquetjs writes it`, [String(e.stack ?? e)]);
    }
  }
  return files;
}

const files = [...parquetRs(), ...(await parquetJs())];
for (const f of files) {
  seen.files++;
  await check(f.label, f.file, f.twin);
}
if (seen.duckdbRefused.size) report.note(`DuckDB does not read: ${[...seen.duckdbRefused].join('; ')}`);
if (seen.refused.size) report.note(`convert refused, naming a type the catalog lacks: ${[...seen.refused].join('; ')}`);
report.note(`${seen.files} files from parquet-rs (parquet-wasm) and @dsnp/parquetjs in ${elapsed()}`);
report.finish(dir);
