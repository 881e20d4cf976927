// Reads an Iceberg table hoglake exported with icebird 0.3.1 (an independent
// reader) and checks it against the source rows (docs/iceberg-export.md):
//   - the metadata resolves through version-hint.text; the current snapshot is
//     refs.main; on v3, next-row-id counts every row;
//   - every row comes back exactly once, with its values;
//   - from the decoded manifests: each file's day partition is the day of
//     every row in it, its rows are ordered by the lookup key, and its
//     bounds contain its values;
//   - deletes: v2 position delete files are applied by icebird itself (and
//     checked here: sorted by file and position, a count that matches, no
//     position past its file's rows, never older than the file they
//     delete from); v3 deletion vectors, which icebird 0.3.1 does not read,
//     are decoded here from the Puffin files against the spec (blob length,
//     magic, 64-bit portable roaring bitmap, CRC-32; at most one vector per
//     data file, its cardinality the entry's record_count) and the data
//     files read with hyparquet, the vectors' positions left out;
//   - with --row-ids: every data file holds _row_id (field 2147483540) with
//     no null, its values within the manifest's bounds for that field, no
//     id twice among the live rows, and on v3 every id below next-row-id.
//
//   node verify_iceberg.mjs --table-url file:///abs/table --rows SOURCE.jsonl
//        [--day-column COL] [--sort-keys a,b,c] [--format-version 2|3] [--key id]
//        [--s3-endpoint http://host:port]   (s3:// URLs read through the test S3 server)
//        [--rows-assigned N]   (v3: next-row-id is N, not the row count: rows were replaced)
//        [--row-ids]           (check the _row_id column of every data file)
//        [--expect-deletes]    (the table must have live delete files)
//
// SOURCE.jsonl holds the source rows (strings, integers, ISO instants for
// timestamps). --key names the column that identifies a row. Exits 1 with
// every mismatch listed; prints a JSON summary on success. icebird reaches
// file:// through a fetch shim (HEAD, Range, 404), as its 0.3.1 has no
// other way to read local files.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installFileFetch } from './file_fetch.mjs';
import { TOOLS } from './lib.mjs';

const { values: opt } = parseArgs({
  options: {
    'table-url': { type: 'string' },
    rows: { type: 'string' },
    'day-column': { type: 'string' },
    'sort-keys': { type: 'string' },
    'format-version': { type: 'string' },
    key: { type: 'string' },
    's3-endpoint': { type: 'string' },
    'rows-assigned': { type: 'string' },
    'row-ids': { type: 'boolean' },
    'expect-deletes': { type: 'boolean' },
  },
});
if (!opt['table-url'] || !opt.rows || !opt.key) {
  console.error('usage: verify_iceberg.mjs --table-url URL --rows FILE --key COL [...]');
  process.exit(2);
}

installFileFetch();
// icebird turns s3://bucket/key into https://bucket.s3.amazonaws.com/key;
// those requests go to the test S3 server instead (path-style), signed with
// SigV4 from HOGLAKE_TEST_S3_ACCESS_KEY / _SECRET_KEY (the server checks).
if (opt['s3-endpoint']) {
  const inner = globalThis.fetch;
  const endpoint = new URL(opt['s3-endpoint']);
  const hmac = (key, text) => crypto.createHmac('sha256', key).update(text).digest();
  const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');
  const enc = (t) => encodeURIComponent(t).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  globalThis.fetch = (input, init = {}) => {
    const url = typeof input === 'string' ? input : input.url;
    const m = /^https:\/\/([^./]+)\.s3\.amazonaws\.com(\/[^?]*)?(\?.*)?$/.exec(url);
    if (!m) return inner(input, init);
    const bucket = m[1], key = m[2] || '/', query = new URLSearchParams((m[3] || '').slice(1));
    const path = `/${bucket}${key.split('/').map((p) => enc(decodeURIComponent(p))).join('/')}`;
    const sorted = [...query.entries()].map(([k, v]) => [enc(k), enc(v)]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const canonicalQuery = sorted.map(([k, v]) => `${k}=${v}`).join('&');
    const now = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const day = now.slice(0, 8), region = process.env.HOGLAKE_TEST_S3_REGION || 'us-east-1';
    const payload = sha('');
    const host = endpoint.host;
    const canonical = ['GET', path, canonicalQuery, `host:${host}\nx-amz-content-sha256:${payload}\nx-amz-date:${now}\n`,
      'host;x-amz-content-sha256;x-amz-date', payload].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', now, scope, sha(canonical)].join('\n');
    let k = hmac('AWS4' + process.env.HOGLAKE_TEST_S3_SECRET_KEY, day);
    for (const part of [region, 's3', 'aws4_request']) k = hmac(k, part);
    const signature = crypto.createHmac('sha256', k).update(toSign).digest('hex');
    const headers = new Headers(init.headers || {});
    headers.set('x-amz-date', now);
    headers.set('x-amz-content-sha256', payload);
    headers.set('Authorization', `AWS4-HMAC-SHA256 Credential=${process.env.HOGLAKE_TEST_S3_ACCESS_KEY}/${scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signature}`);
    return inner(`${endpoint.origin}${path}${canonicalQuery ? '?' + canonicalQuery : ''}`, { ...init, headers });
  };
}

const icebird = await import(path.join(TOOLS, 'node_modules', 'icebird', 'src', 'index.js'));
const hyparquet = await import(path.join(TOOLS, 'node_modules', 'hyparquet', 'src', 'index.js'));
const { compressors } = await import(path.join(TOOLS, 'node_modules', 'hyparquet-compressors', 'src', 'index.js'));
const problems = [];
const fail = (msg) => {
  if (problems.length < 50) problems.push(msg);
};

const tableUrl = opt['table-url'];
const metadata = await icebird.icebergMetadata({ tableUrl });
const wantVersion = opt['format-version'] ? Number(opt['format-version']) : undefined;
if (wantVersion && metadata['format-version'] !== wantVersion)
  fail(`format-version ${metadata['format-version']}, expected ${wantVersion}`);
const current = metadata['current-snapshot-id'];
if (metadata.refs?.main?.['snapshot-id'] !== current) fail('refs.main is not the current snapshot');

const source = fs.readFileSync(opt.rows, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
// With --row-ids (rows deleted: fewer than the ids handed out) the ids are
// checked against next-row-id one by one instead, unless N is given.
const assigned = opt['rows-assigned'] ? Number(opt['rows-assigned']) : opt['row-ids'] ? null : source.length;
if (metadata['format-version'] === 3 && assigned !== null && Number(metadata['next-row-id']) !== assigned)
  fail(`next-row-id ${metadata['next-row-id']}, expected ${assigned} rows assigned`);

// ---- values ----
const epochMs = (v) => (v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : v);
const canon = (v) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return `ms:${v.getTime()}`;
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) return `ms:${Date.parse(v)}`;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  return v;
};
// ---- deletes ----
const manifests = await icebird.icebergManifests(metadata);
const entries = manifests.flatMap((m) => m.entries).filter((e) => e.status !== 2);
const dataEntries = entries.filter((e) => Number(e.data_file.content ?? 0) === 0);
const deleteEntries = entries.filter((e) => Number(e.data_file.content ?? 0) !== 0);
if (opt['expect-deletes'] && deleteEntries.length === 0) fail('the table has no live delete file');

// s3:// paths are fetched as icebird fetches them (the --s3-endpoint shim
// above sends those to the test server).
const fetchable = (url) => url.replace(/^s3:\/\/([^/]+)\//, 'https://$1.s3.amazonaws.com/');
const fileBytes = async (url) => {
  const res = await fetch(fetchable(url));
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
};
const asyncBuffer = (bytes) => ({ byteLength: bytes.byteLength, slice: async (s, e) => bytes.slice(s, e).buffer });

// CRC-32 (IEEE), as the deletion-vector blob ends with.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (b) => {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

// A 32-bit roaring bitmap in the portable format at b[at...]: its values
// (high bits added by the caller) and where it ends.
function roaring32(b, at) {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const cookie = dv.getUint32(at, true);
  let size, runs = null, p = at + 4;
  if ((cookie & 0xffff) === 12347) {
    size = (cookie >>> 16) + 1;
    runs = b.subarray(p, p + Math.ceil(size / 8));
    p += Math.ceil(size / 8);
  } else if (cookie === 12346) {
    size = dv.getUint32(p, true);
    p += 4;
  } else throw new Error(`bad roaring cookie ${cookie}`);
  const keys = [], cards = [];
  for (let i = 0; i < size; i++, p += 4) {
    keys.push(dv.getUint16(p, true));
    cards.push(dv.getUint16(p + 2, true) + 1);
  }
  if (!runs || size >= 4) p += 4 * size; // the offset header
  const out = [];
  for (let i = 0; i < size; i++) {
    const hi = keys[i] << 16;
    if (runs && runs[i >> 3] & (1 << (i & 7))) {
      const n = dv.getUint16(p, true);
      p += 2;
      for (let r = 0; r < n; r++, p += 4) {
        const start = dv.getUint16(p, true), len = dv.getUint16(p + 2, true);
        for (let v = start; v <= start + len; v++) out.push(hi + v);
      }
    } else if (cards[i] <= 4096) {
      for (let k = 0; k < cards[i]; k++, p += 2) out.push(hi + dv.getUint16(p, true));
    } else {
      for (let w = 0; w < 8192; w++, p++)
        for (let bit = 0; bit < 8; bit++) if (b[p] & (1 << bit)) out.push(hi + w * 8 + bit);
    }
  }
  return { values: out, end: p };
}

// A deletion-vector-v1 blob: its positions.
function decodeVector(blob, where) {
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const len = dv.getUint32(0, false);
  if (len + 8 !== blob.length) throw new Error(`${where}: blob length ${len} for ${blob.length} bytes`);
  if (blob[4] !== 0xd1 || blob[5] !== 0xd3 || blob[6] !== 0x39 || blob[7] !== 0x64) throw new Error(`${where}: bad magic`);
  if (crc32(blob.subarray(4, 4 + len)) !== dv.getUint32(4 + len, false)) throw new Error(`${where}: bad CRC-32`);
  const vec = blob.subarray(8, 4 + len);
  const vdv = new DataView(vec.buffer, vec.byteOffset, vec.byteLength);
  const buckets = Number(vdv.getBigUint64(0, true));
  const out = [];
  let p = 8;
  for (let i = 0; i < buckets; i++) {
    const high = vdv.getUint32(p, true);
    const r = roaring32(vec, p + 4);
    for (const v of r.values) out.push(high * 2 ** 32 + v);
    p = r.end;
  }
  if (p !== vec.length) throw new Error(`${where}: ${vec.length - p} bytes after the bitmap`);
  return out;
}

const dataByPath = new Map(dataEntries.map((e) => [e.data_file.file_path, e]));
const deleted = new Map(); // data file path -> Set of positions
const addDeleted = (file, pos, where) => {
  const target = dataByPath.get(file);
  if (!target) return fail(`${where}: deletes from ${file}, which is not a live data file`);
  if (pos < 0 || pos >= Number(target.data_file.record_count)) fail(`${where}: position ${pos} past the rows of ${file}`);
  if (!deleted.has(file)) deleted.set(file, new Set());
  deleted.get(file).add(pos);
};
let dvs = 0;
const vectorOf = new Set();
for (const e of deleteEntries) {
  const df = e.data_file, where = df.file_path;
  if (Number(df.content) !== 1) {
    fail(`${where}: content ${df.content} (equality deletes are never written)`);
    continue;
  }
  const bytes = await fileBytes(df.file_path);
  if (bytes.length !== Number(df.file_size_in_bytes)) fail(`${where}: ${bytes.length} bytes, the manifest says ${df.file_size_in_bytes}`);
  if (String(df.file_format).toUpperCase() === 'PUFFIN') {
    dvs++;
    if (metadata['format-version'] < 3) fail(`${where}: a deletion vector in a v2 table`);
    const magic = (o) => String.fromCharCode(...bytes.subarray(o, o + 4));
    if (magic(0) !== 'PFA1' || magic(bytes.length - 4) !== 'PFA1') fail(`${where}: not a Puffin file`);
    const ref = df.referenced_data_file;
    if (vectorOf.has(ref)) fail(`${ref} has two deletion vectors`);
    vectorOf.add(ref);
    const off = Number(df.content_offset), len = Number(df.content_size_in_bytes);
    let positions = [];
    try {
      positions = decodeVector(bytes.subarray(off, off + len), where);
    } catch (err) {
      fail(String(err.message));
    }
    if (positions.length !== Number(df.record_count)) fail(`${where}: ${positions.length} positions for ${ref}, record_count ${df.record_count}`);
    for (const p of positions) addDeleted(ref, p, where);
  } else {
    const rows = await hyparquet.parquetReadObjects({ file: asyncBuffer(bytes), compressors });
    if (rows.length !== Number(df.record_count)) fail(`${where}: ${rows.length} rows, record_count ${df.record_count}`);
    for (let i = 0; i < rows.length; i++) {
      const { file_path, pos } = rows[i];
      const prev = rows[i - 1];
      if (prev && (prev.file_path > file_path || (prev.file_path === file_path && prev.pos >= pos))) fail(`${where}: rows ${i - 1} and ${i} are not sorted by file and position`);
      addDeleted(file_path, Number(pos), where);
      const target = dataByPath.get(file_path);
      if (target && BigInt(target.sequence_number) > BigInt(e.sequence_number)) fail(`${where}: deletes from the newer ${file_path}`);
    }
  }
}

// ---- values ----
const readOwn = async () => {
  // Data files read directly (icebird cannot apply deletion vectors):
  // columns mapped by field id through the file's iceberg.schema.
  const out = [];
  for (const e of dataEntries) {
    const bytes = await fileBytes(e.data_file.file_path);
    const file = asyncBuffer(bytes);
    const meta = await hyparquet.parquetMetadataAsync(file);
    const kv = meta.key_value_metadata?.find((k) => k.key === 'iceberg.schema');
    const fileSchema = kv ? JSON.parse(kv.value) : schemaNow;
    const rows = await hyparquet.parquetReadObjects({ file, metadata: meta, compressors });
    const gone = deleted.get(e.data_file.file_path) ?? new Set();
    rows.forEach((r, i) => {
      if (gone.has(i)) return;
      const o = {};
      for (const f of schemaNow.fields) {
        const pf = fileSchema.fields.find((x) => x.id === f.id);
        o[f.name] = pf ? r[pf.name] : undefined;
      }
      out.push(o);
    });
  }
  return out;
};
const schemaNow = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
const key = opt.key;
const rows = dvs ? await readOwn() : await icebird.icebergRead({ tableUrl, metadata });
if (rows.length !== source.length) fail(`${rows.length} rows read, ${source.length} in the source`);
const byKey = new Map(source.map((r) => [String(canon(r[key])), r]));
const seen = new Set();
for (const r of rows) {
  const k = String(canon(r[key]));
  const want = byKey.get(k);
  if (!want) {
    fail(`row ${k} is not in the source`);
    continue;
  }
  if (seen.has(k)) fail(`row ${k} read twice`);
  seen.add(k);
  for (const [col, v] of Object.entries(want)) {
    if (canon(r[col]) !== canon(v)) fail(`row ${k} column ${col}: read ${canon(r[col])}, source ${canon(v)}`);
  }
}

// ---- per file: partition, order, bounds ----
const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
const idOf = (name) => schema.fields.find((f) => f.name === name)?.id;
const dayCol = opt['day-column'];
const sortKeys = opt['sort-keys'] ? opt['sort-keys'].split(',') : [];
const cmp = (a, b) => {
  for (const k of sortKeys) {
    const x = a[k], y = b[k];
    if (x === y) continue;
    if (x === null || x === undefined) return -1; // nulls first
    if (y === null || y === undefined) return 1;
    const xs = x instanceof Date ? x.getTime() : x, ys = y instanceof Date ? y.getTime() : y;
    if (xs < ys) return -1;
    if (xs > ys) return 1;
  }
  return 0;
};
const boundLong = (bytes) => (bytes ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigInt64(0, true) : null);
const bound = (map, id) => map?.find((e) => Number(e.key) === id)?.value;
let at = 0;
const partitionValues = new Set();
const ROW_ID = 2147483540;
const rowIds = new Set();
for (const e of dataEntries) {
  const n = Number(e.data_file.record_count) - (deleted.get(e.data_file.file_path)?.size ?? 0);
  if (opt['row-ids']) {
    const bytes = await fileBytes(e.data_file.file_path);
    const ids = await hyparquet.parquetReadObjects({ file: asyncBuffer(bytes), columns: ['_row_id'], compressors });
    const lo = boundLong(bound(e.data_file.lower_bounds, ROW_ID)), hi = boundLong(bound(e.data_file.upper_bounds, ROW_ID));
    if (lo === null || hi === null) fail(`${e.data_file.file_path}: no _row_id bounds`);
    const gone = deleted.get(e.data_file.file_path) ?? new Set();
    ids.forEach(({ _row_id: id }, i) => {
      if (id === null || id === undefined) return fail(`${e.data_file.file_path}: row ${i} has no _row_id`);
      const v = BigInt(id);
      if (lo !== null && (v < lo || v > hi)) fail(`${e.data_file.file_path}: _row_id ${v} outside [${lo}, ${hi}]`);
      if (metadata['format-version'] === 3 && v >= BigInt(metadata['next-row-id'])) fail(`_row_id ${v} is not below next-row-id`);
      if (gone.has(i)) return;
      if (rowIds.has(v)) fail(`_row_id ${v} is live twice`);
      rowIds.add(v);
    });
  }
  const fileRows = rows.slice(at, at + n);
  at += n;
  if (dayCol) {
    const pv = Object.values(e.data_file.partition ?? {})[0];
    const day = pv === null || pv === undefined ? null : pv instanceof Date ? Math.floor(pv.getTime() / 86400000) : Number(pv);
    partitionValues.add(day);
    for (const r of fileRows) {
      const v = r[dayCol];
      const rowDay = v === null || v === undefined ? null : Math.floor(epochMs(v) / 86400000);
      if (rowDay !== day) fail(`${e.data_file.file_path}: a row of day ${rowDay} in partition ${day}`);
    }
    const id = idOf(dayCol);
    const lo = boundLong(bound(e.data_file.lower_bounds, id)), hi = boundLong(bound(e.data_file.upper_bounds, id));
    for (const r of fileRows) {
      const v = r[dayCol];
      if (v === null || v === undefined || lo === null) continue;
      const ms = BigInt(epochMs(v));
      if (ms < lo / 1000n || ms > hi / 1000n + 1n) fail(`${e.data_file.file_path}: ${dayCol} ${ms} ms outside [${lo}, ${hi}] us`);
    }
  }
  for (let i = 1; i < fileRows.length; i++) {
    if (cmp(fileRows[i - 1], fileRows[i]) > 0) {
      fail(`${e.data_file.file_path}: rows ${i - 1} and ${i} are out of lookup-key order`);
      break;
    }
  }
  if (sortKeys.length) {
    const id = idOf(sortKeys[0]);
    const lo = bound(e.data_file.lower_bounds, id), hi = bound(e.data_file.upper_bounds, id);
    const dec = new TextDecoder();
    for (const r of fileRows) {
      const v = r[sortKeys[0]];
      if (typeof v !== 'string' || !lo) continue;
      if (v < dec.decode(lo) || v > dec.decode(hi)) fail(`${e.data_file.file_path}: ${sortKeys[0]} '${v}' outside its bounds`);
    }
  }
}

if (problems.length) {
  console.error(`verify_iceberg: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(JSON.stringify({
  format_version: metadata['format-version'],
  snapshots: metadata.snapshots.length,
  files: dataEntries.length,
  delete_files: deleteEntries.length,
  deletion_vectors: dvs,
  rows: rows.length,
  partitions: partitionValues.size,
}));
