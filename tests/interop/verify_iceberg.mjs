// Reads an Iceberg table hoglake exported with icebird 0.3.1 (an independent
// reader) and checks it against the source rows (docs/iceberg-export.md):
//   - the metadata resolves through version-hint.text; the current snapshot is
//     refs.main; on v3, next-row-id counts every row;
//   - every row comes back exactly once, with its values;
//   - from the decoded manifests: each file's day partition is the day of
//     every row in it, its rows are ordered by the lookup key, and its
//     bounds contain its values.
//
//   node verify_iceberg.mjs --table-url file:///abs/table --rows SOURCE.jsonl
//        [--day-column COL] [--sort-keys a,b,c] [--format-version 2|3] [--key id]
//        [--s3-endpoint http://host:port]   (s3:// URLs read through the test S3 server)
//        [--rows-assigned N]   (v3: next-row-id is N, not the row count: rows were replaced)
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
const assigned = opt['rows-assigned'] ? Number(opt['rows-assigned']) : source.length;
if (metadata['format-version'] === 3 && Number(metadata['next-row-id']) !== assigned)
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
const key = opt.key;
const rows = await icebird.icebergRead({ tableUrl, metadata });
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
const manifests = await icebird.icebergManifests(metadata);
const entries = manifests.flatMap((m) => m.entries).filter((e) => e.status !== 2);
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
for (const e of entries) {
  const n = Number(e.data_file.record_count);
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
  files: entries.length,
  rows: rows.length,
  partitions: partitionValues.size,
}));
