// Shared helpers of the Parquet interop tests (tests/interop/*.mjs): where the
// tools are, running the hoglake CLI, exact JSON, the value model of the
// generated tables and its canonical text, and the comparison that reports
// every difference with its row and column path.
//
// The value model (what gen_data.mjs produces, one JS value per cell):
//   boolean                          true / false
//   int8 ... uint64, long, int       BigInt (exact at 64 bits)
//   float, double                    Number (NaN, +-Infinity, -0 included;
//                                    float values are float32-exact)
//   decimal                          "-123.45" (exactly `scale` digits)
//   date                             "YYYY-MM-DD"
//   time                             "HH:MM:SS.ffffff"
//   timestamp_s/_ms/timestamp/_ns    "YYYY-MM-DDTHH:MM:SS[.f...]" (0/3/6/9 digits)
//   timestamptz                      "YYYY-MM-DDTHH:MM:SS.ffffffZ"
//   uuid                             lowercase 8-4-4-4-12
//   binary                           Uint8Array
//   string, json                     string (json: the JSON text)
//   struct                           object with every field
//   list                             array
//   map                              array of [key, value] pairs
//   null                             null
// This is also exactly what `hoglake parquet cat --format jsonl` prints, once
// the map and binary shapes are applied (modelToJsonText).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const TOOLS = process.env.HOGLAKE_TOOLS_DIR || path.join(ROOT, 'tools');
const toolsRequire = createRequire(path.join(TOOLS, 'package.json'));

// ---- the tools ----

function needTools() {
  for (const p of ['@duckdb/node-api', 'hyparquet', 'hyparquet-compressors'])
    if (!fs.existsSync(path.join(TOOLS, 'node_modules', p)))
      throw new Error(`${path.join(TOOLS, 'node_modules', p)} is missing: run 'npm ci --prefix ${TOOLS}'`);
}

export async function loadDuckDB() {
  needTools();
  return toolsRequire('@duckdb/node-api');
}

// hyparquet and hyparquet-compressors are ES modules: import them by path
// from tools/node_modules (NODE_PATH does not apply to `import`).
export async function loadHyparquet() {
  needTools();
  const nm = path.join(TOOLS, 'node_modules');
  const hp = await import(path.join(nm, 'hyparquet/src/node.js'));
  const hc = await import(path.join(nm, 'hyparquet-compressors/src/index.js'));
  const thrift = await import(path.join(nm, 'hyparquet/src/thrift.js'));
  // hyparquet-compressors 1.1.2 cannot decompress the LZ4 block of an empty
  // page (the single byte 0x00 every LZ4 compressor emits for no input:
  // "lz4 offset out of range 0"); our writer emits such pages as the empty
  // dictionary page of an all-null chunk. An empty page needs no decoding.
  const lz4raw = hc.compressors.LZ4_RAW;
  const compressors = { ...hc.compressors, LZ4_RAW: (input, n) => (n === 0 ? new Uint8Array(0) : lz4raw(input, n)) };
  const { parquetHeader } = await import(path.join(nm, 'hyparquet/src/column.js'));
  const indexes = await import(path.join(nm, 'hyparquet/src/indexes.js'));
  return { ...hp, ...indexes, compressors, thrift, walkPages: (buf, meta) => walkPages(parquetHeader, buf, meta) };
}

// Every page header of every chunk of a file (meta: hyparquet's metadata):
// [{path, pages: [{type, encoding, num_values}]}] in row group, column order.
function walkPages(parquetHeader, buf, meta) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const chunks = [];
  for (const rg of meta.row_groups) {
    for (const cc of rg.columns) {
      const m = cc.meta_data;
      const dict = m.dictionary_page_offset !== undefined && Number(m.dictionary_page_offset) > 0;
      let off = Number(dict ? m.dictionary_page_offset : m.data_page_offset);
      const end = off + Number(m.total_compressed_size);
      const pages = [];
      while (off < end) {
        const reader = { view, offset: off };
        const h = parquetHeader(reader);
        const ph = h.data_page_header || h.data_page_header_v2 || h.dictionary_page_header || {};
        const size = reader.offset - off + h.compressed_page_size;
        pages.push({ type: h.type, encoding: ph.encoding, num_values: ph.num_values, num_rows: ph.num_rows, offset: off, size });
        off += size;
      }
      if (off !== end) throw new Error(`pages of ${m.path_in_schema.join('.')} end at ${off}, the chunk at ${end}`);
      chunks.push({ path: m.path_in_schema.join('.'), pages });
    }
  }
  return chunks;
}

export function hoglakeBin() {
  const cands = [process.env.HOGLAKE_BIN, path.join(ROOT, 'build/src/hoglake')].filter(Boolean);
  for (const c of cands) if (fs.existsSync(c)) return c;
  throw new Error(`the hoglake binary was not found (set HOGLAKE_BIN); tried ${cands.join(', ')}`);
}

export function workDir(name) {
  const base = process.env.INTEROP_WORK_DIR || path.join(process.env.TMPDIR || '/tmp', 'hoglake-interop');
  const d = path.join(base, `${name}-${process.pid}`);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { recursive: true });
  return d;
}

// Runs the CLI; returns {status, stdout, stderr, ms}.
export function hoglake(args, opts = {}) {
  const t0 = performance.now();
  const r = spawnSync(hoglakeBin(), args, {
    encoding: opts.binary ? 'buffer' : 'utf8',
    maxBuffer: 1 << 30,
    input: opts.input,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0, signal: r.signal };
}

export function hoglakeOk(args, opts) {
  const r = hoglake(args, opts);
  if (r.status !== 0) {
    const err = new Error(`hoglake ${args.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 2000)}`);
    err.result = r;
    throw err;
  }
  return r;
}

// ---- exact JSON ----

// A JSON number kept as its text.
export class JNum {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

// JSON.parse that keeps numbers as JNum (so 64-bit integers and float text
// survive); objects keep duplicate keys out (the last wins, as JSON.parse).
const NUM = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
export function parseJsonExact(text) {
  let i = 0;
  const n = text.length;
  const ws = () => { while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++; };
  const fail = (what) => { throw new Error(`JSON: ${what} at ${i}: ${text.slice(Math.max(0, i - 20), i + 20)}`); };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = {};
      Object.defineProperty(o, '__keys', { value: [], enumerable: false });
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        o.__keys.push(k);
        o[k] = value();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) fail('bad value');
    i += m[0].length;
    return new JNum(m[0]);
  };
  const str = () => {
    const start = i;
    i++;
    while (i < n && text[i] !== '"') { if (text[i] === '\\') i++; i++; }
    if (i >= n) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = value();
  ws();
  if (i !== n) fail('trailing text');
  return v;
}

export function parseJsonLines(text) {
  const out = [];
  for (const line of text.split('\n')) if (line.length) out.push(parseJsonExact(line));
  return out;
}

// ---- schema helpers ----

export const INT_TYPES = new Set(['int8', 'int16', 'int', 'long', 'uint8', 'uint16', 'uint32', 'uint64']);
export const TS_DIGITS = { timestamp_s: 0, timestamp_ms: 3, timestamp: 6, timestamp_ns: 9, timestamptz: 6 };
export const isNested = (t) => t === 'struct' || t === 'list' || t === 'map';

// Field ids as the CLI assigns them: given ones kept, the others depth-first
// (parents before children) from the smallest id no column claims.
export function assignFieldIds(columns) {
  const all = [];
  const walk = (cols) => { for (const c of cols) { all.push(c); if (c.children) walk(c.children); } };
  walk(columns);
  const used = new Set(all.filter((c) => c.field_id != null).map((c) => c.field_id));
  let next = 1;
  const ids = new Map();
  for (const c of all) {
    if (c.field_id != null) { ids.set(c, c.field_id); continue; }
    while (used.has(next)) next++;
    ids.set(c, next++);
  }
  return ids;
}

// The Parquet schema elements we write for a table, in order (root excluded):
// {name, field_id (null for list/key_value), repetition, path}.
export function expectedElements(columns) {
  const ids = assignFieldIds(columns);
  const out = [];
  const emit = (c, name, rep, parent) => {
    const p = [...parent, name];
    out.push({ name, field_id: ids.get(c), repetition: rep, path: p, col: c });
    if (c.type === 'struct') for (const k of c.children) emit(k, k.name, k.nullable === false ? 'REQUIRED' : 'OPTIONAL', p);
    if (c.type === 'list') {
      out.push({ name: 'list', field_id: null, repetition: 'REPEATED', path: [...p, 'list'] });
      const e = c.children[0];
      emit(e, 'element', e.nullable === false ? 'REQUIRED' : 'OPTIONAL', [...p, 'list']);
    }
    if (c.type === 'map') {
      out.push({ name: 'key_value', field_id: null, repetition: 'REPEATED', path: [...p, 'key_value'] });
      emit(c.children[0], 'key', 'REQUIRED', [...p, 'key_value']);
      const v = c.children[1];
      emit(v, 'value', v.nullable === false ? 'REQUIRED' : 'OPTIONAL', [...p, 'key_value']);
    }
  };
  for (const c of columns) emit(c, c.name, c.nullable === false ? 'REQUIRED' : 'OPTIONAL', []);
  return out;
}

// Leaf columns in file order: {path: ['s','items','list','element','k'], col,
// top: the top-level column, steps: how to walk a row value down to it}.
export function leafColumns(columns) {
  const out = [];
  const walk = (c, p, steps, top) => {
    if (c.type === 'struct') { for (const k of c.children) walk(k, [...p, k.name], [...steps, { kind: 'field', name: k.name }], top); return; }
    if (c.type === 'list') { walk(c.children[0], [...p, 'list', 'element'], [...steps, { kind: 'list' }], top); return; }
    if (c.type === 'map') {
      walk(c.children[0], [...p, 'key_value', 'key'], [...steps, { kind: 'map', which: 0 }], top);
      walk(c.children[1], [...p, 'key_value', 'value'], [...steps, { kind: 'map', which: 1 }], top);
      return;
    }
    out.push({ path: p, col: c, top, steps });
  };
  for (const c of columns) walk(c, [c.name], [], c);
  return out;
}

// A leaf's level entries for one row: the leaf values (null where the
// entry holds no value: a null, an empty list, a null ancestor).
export function leafEntries(leaf, row) {
  const out = [];
  const go = (v, s) => {
    if (v === null || v === undefined) { out.push(null); return; }
    if (s === leaf.steps.length) { out.push(v); return; }
    const st = leaf.steps[s];
    if (st.kind === 'field') return go(v[st.name], s + 1);
    if (v.length === 0) { out.push(null); return; }
    if (st.kind === 'list') for (const e of v) go(e, s + 1);
    else for (const kv of v) go(kv[st.which], s + 1);
  };
  go(row[leaf.top.name], 0);
  return out;
}

// ---- temporal text <-> integers ----

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z) {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [y + (m <= 2 ? 1 : 0), m, d];
}

const p2 = (x) => String(x).padStart(2, '0');

export function formatDate(days) {
  const [y, m, d] = civilFromDays(Number(days));
  const ys = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(5, '0');
  return `${ys}-${p2(m)}-${p2(d)}`;
}

export function parseDate(s) {
  const m = /^([+-]\d{4,6}|\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) throw new Error(`bad date '${s}'`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

const POW10 = [1n, 10n, 100n, 1000n, 10000n, 100000n, 1000000n, 10000000n, 100000000n, 1000000000n];
const floorDiv = (a, b) => { const q = a / b; return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q; };

export function formatTime(micros) {
  const v = BigInt(micros);
  const s = v / 1000000n;
  const f = v % 1000000n;
  return `${p2(s / 3600n)}:${p2((s / 60n) % 60n)}:${p2(s % 60n)}.${String(f).padStart(6, '0')}`;
}

export function parseTime(s) {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(s);
  if (!m) throw new Error(`bad time '${s}'`);
  const frac = (m[4] || '').padEnd(6, '0');
  return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3])) * 1000000n + BigInt(frac.slice(0, 6));
}

// An instant in 10^-digits seconds since the epoch as our text.
export function formatTimestamp(v, digits, utc) {
  v = BigInt(v);
  const per = POW10[digits];
  const secs = floorDiv(v, per);
  const frac = v - secs * per;
  const days = floorDiv(secs, 86400n);
  const sod = secs - days * 86400n;
  let t = `${formatDate(Number(days))}T${p2(sod / 3600n)}:${p2((sod / 60n) % 60n)}:${p2(sod % 60n)}`;
  if (digits) t += '.' + String(frac).padStart(digits, '0');
  return utc ? t + 'Z' : t;
}

// Our text (or DuckDB's: a space for the T, "+00"/"+00:00" for Z, fewer
// fraction digits) to an integer in 10^-digits seconds.
export function parseTimestamp(s, digits) {
  const m = /^([+-]?\d{4,6}-\d{2}-\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]00(?::?00)?)?$/.exec(s);
  if (!m) throw new Error(`bad timestamp '${s}'`);
  const frac = (m[5] || '');
  if (frac.length > digits && /[1-9]/.test(frac.slice(digits))) throw new Error(`timestamp '${s}' finer than 10^-${digits} s`);
  const days = BigInt(parseDate(m[1]));
  const secs = days * 86400n + BigInt(m[2]) * 3600n + BigInt(m[3]) * 60n + BigInt(m[4]);
  return secs * POW10[digits] + BigInt((frac.padEnd(digits, '0')).slice(0, digits) || '0');
}

// ---- decimals, floats, bytes ----

export function formatDecimal(unscaled, scale) {
  let v = BigInt(unscaled);
  const neg = v < 0n;
  if (neg) v = -v;
  let s = v.toString().padStart(scale + 1, '0');
  if (scale > 0) s = s.slice(0, s.length - scale) + '.' + s.slice(s.length - scale);
  return (neg ? '-' : '') + s;
}

// "-123.45" (any number of fraction digits, exponents allowed) at a scale:
// the unscaled BigInt, or an Error when digits past the scale are not zero.
export function parseDecimal(text, scale) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(String(text).trim());
  if (!m) throw new Error(`bad decimal '${text}'`);
  let digits = m[2] + (m[3] || '');
  let exp = Number(m[4] || 0) - (m[3] || '').length + scale;
  if (exp >= 0) digits += '0'.repeat(exp);
  else {
    const cut = digits.slice(digits.length + exp);
    if (/[1-9]/.test(cut)) throw new Error(`decimal '${text}' has more than ${scale} fraction digits`);
    digits = digits.slice(0, digits.length + exp) || '0';
  }
  const v = BigInt(digits);
  return m[1] ? -v : v;
}

export function canonFloat(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

// The shortest significant digits that read back as x (as a float32 when
// single): what `cat` must print, up to layout.
export function shortestDigits(x, single) {
  if (!single) return sigDigits(String(Math.abs(x)));
  for (let p = 1; p <= 9; p++) {
    const t = Math.abs(x).toPrecision(p);
    if (Math.fround(Number(t)) === Math.abs(x)) return sigDigits(t);
  }
  return null;
}

// A number's text laid out as Python's repr does (what cat prints): the
// significant digits of t placed positionally for decimal exponents -4..15
// ("100.0", "0.0001"), else as d.ddde±XX ("1e+16", "1.5e-07").
export function pyReprLayout(t) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return null;
  let all = m[2] + (m[3] || '');
  let point = m[2].length + Number(m[4] || 0);
  while (all.length > 1 && all[0] === '0') { all = all.slice(1); point--; }
  all = all.replace(/0+$/, '') || '0';
  const e = point - 1;
  let body;
  if (e >= -4 && e < 16) {
    if (point <= 0) body = '0.' + '0'.repeat(-point) + all;
    else if (point >= all.length) body = all + '0'.repeat(point - all.length) + '.0';
    else body = all.slice(0, point) + '.' + all.slice(point);
  } else {
    body = all[0] + (all.length > 1 ? '.' + all.slice(1) : '') + 'e' + (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');
  }
  return m[1] + body;
}

export function sigDigits(t) {
  const mant = t.replace(/^-/, '').split(/[eE]/)[0].replace('.', '');
  return mant.replace(/^0+/, '').replace(/0+$/, '') || '0';
}

export const toBase64 = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
export const fromBase64 = (s) => new Uint8Array(Buffer.from(s, 'base64'));
export const hex = (b) => Buffer.from(b).toString('hex');

export function uuidToBytes(u) {
  return new Uint8Array(Buffer.from(u.replace(/-/g, ''), 'hex'));
}

export function bytesToUuid(b) {
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---- the model as JSON Lines ----

// A model cell as JSON text in the conventions of `convert --from jsonl`.
export function modelToJsonText(col, v) {
  if (v === null || v === undefined) return 'null';
  switch (col.type) {
    case 'boolean': return v ? 'true' : 'false';
    case 'float': case 'double':
      if (Number.isNaN(v) || !Number.isFinite(v)) return JSON.stringify(canonFloat(v));
      if (Object.is(v, -0)) return '-0.0';
      return String(v);
    case 'binary': return JSON.stringify(toBase64(v));
    case 'struct':
      return '{' + col.children.map((k) => JSON.stringify(k.name) + ':' + modelToJsonText(k, v[k.name])).join(',') + '}';
    case 'list':
      return '[' + v.map((e) => modelToJsonText(col.children[0], e)).join(',') + ']';
    case 'map': {
      const [kc, vc] = col.children;
      if (kc.type === 'string')
        return '{' + v.map(([k, x]) => JSON.stringify(k) + ':' + modelToJsonText(vc, x)).join(',') + '}';
      return '[' + v.map(([k, x]) => `{"key":${modelToJsonText(kc, k)},"value":${modelToJsonText(vc, x)}}`).join(',') + ']';
    }
    default:
      if (INT_TYPES.has(col.type)) return v.toString();
      return JSON.stringify(v);
  }
}

export function rowToJsonl(columns, row) {
  return '{' + columns.map((c) => JSON.stringify(c.name) + ':' + modelToJsonText(c, row[c.name])).join(',') + '}';
}

// ---- canonical values: one comparable form for every reader ----
//
// Scalars become strings (ints in decimal, floats via canonFloat, the rest
// in our text conventions); structs objects in schema order; lists arrays;
// maps arrays of [key, value]. Readers' values are brought to this form by
// their adapters; `view` options say what a lossy reader can represent.

export function canonModel(col, v, view = {}) {
  if (v === null || v === undefined) return null;
  switch (col.type) {
    case 'boolean': return v ? 'true' : 'false';
    case 'float': return canonFloat(Math.fround(v));
    case 'double': return canonFloat(v);
    case 'decimal':
      if (view.decimalAsNumber) return canonFloat(Number(parseDecimal(v, col.type_params.scale)) / 10 ** col.type_params.scale);
      return formatDecimal(parseDecimal(v, col.type_params.scale), col.type_params.scale);
    case 'binary': return toBase64(v);
    case 'json': return view.json ? view.json(v) : v;
    case 'struct': {
      const o = {};
      for (const k of col.children) o[k.name] = canonModel(k, v[k.name], view);
      return o;
    }
    case 'list': return v.map((e) => canonModel(col.children[0], e, view));
    case 'map': {
      const pairs = v.map(([k, x]) => [canonModel(col.children[0], k, view), canonModel(col.children[1], x, view)]);
      return view.mapAsObject ? view.mapAsObject(col, pairs) : pairs;
    }
    default:
      if (INT_TYPES.has(col.type)) return v.toString();
      return v;
  }
}

// Compares canonical trees; pushes "path: expected X, got Y" lines into out.
export function diffCanon(exp, got, where, out, limit = 20) {
  if (out.length >= limit) return;
  if (exp === got) return;
  if (exp === null || got === null || typeof exp !== typeof got) {
    out.push(`${where}: expected ${show(exp)}, got ${show(got)}`);
    return;
  }
  if (Array.isArray(exp)) {
    if (!Array.isArray(got)) { out.push(`${where}: expected array ${show(exp)}, got ${show(got)}`); return; }
    if (exp.length !== got.length) { out.push(`${where}: expected ${exp.length} items ${show(exp)}, got ${got.length} ${show(got)}`); return; }
    for (let i = 0; i < exp.length; i++) diffCanon(exp[i], got[i], `${where}[${i}]`, out, limit);
    return;
  }
  if (typeof exp === 'object') {
    const ek = Object.keys(exp), gk = Object.keys(got);
    if (ek.join('\u0000') !== gk.join('\u0000')) { out.push(`${where}: expected fields ${ek}, got ${gk}`); return; }
    for (const k of ek) diffCanon(exp[k], got[k], `${where}.${k}`, out, limit);
    return;
  }
  out.push(`${where}: expected ${show(exp)}, got ${show(got)}`);
}

export function show(v) {
  const s = JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return s === undefined ? String(v) : s.length > 300 ? s.slice(0, 300) + '...' : s;
}

// Compares whole tables of canonical rows (arrays of {col: canon}).
export function diffRows(columns, exp, got, label, out, limit = 20) {
  if (exp.length !== got.length) out.push(`${label}: expected ${exp.length} rows, got ${got.length}`);
  const n = Math.min(exp.length, got.length);
  for (let i = 0; i < n && out.length < limit; i++)
    for (const c of columns) diffCanon(exp[i][c.name], got[i][c.name], `${label} row ${i} ${c.name}`, out, limit);
}

// ---- statistics expected from the data ----

// Order keys for statistics: BigInt for integers, temporals and decimals;
// Number for floats; Buffer (unsigned bytes) for strings, binary, uuid;
// 0/1 for booleans.
export function orderKey(col, v) {
  switch (col.type) {
    case 'boolean': return v ? 1 : 0;
    case 'float': return Math.fround(v);
    case 'double': return v;
    case 'decimal': return parseDecimal(v, col.type_params.scale);
    case 'date': return BigInt(parseDate(v));
    case 'time': return parseTime(v);
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz':
      return parseTimestamp(v, TS_DIGITS[col.type]);
    case 'uuid': return Buffer.from(uuidToBytes(v));
    case 'binary': return Buffer.from(v);
    case 'string': case 'json': return Buffer.from(v, 'utf8');
    default: if (INT_TYPES.has(col.type)) return v;
  }
  throw new Error(`no order for ${col.type}`);
}

function cmpKey(a, b) {
  if (Buffer.isBuffer(a)) return Buffer.compare(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

// Expected statistics of one chunk (a leaf over a slice of rows), by our
// documented rules: NaN never a bound, zero bounds -0.0/+0.0, unsigned
// 64-bit order for uint64, bytewise byte arrays (bounds omitted when a value
// passes 4 KiB), decimals by value. min/max are model values (or null).
export function expectedChunkStats(leaf, rows) {
  let numValues = 0, nulls = 0, min = null, max = null, minK, maxK, tooLong = false;
  for (const row of rows) {
    for (const v of leafEntries(leaf, row)) {
      numValues++;
      if (v === null) { nulls++; continue; }
      if ((leaf.col.type === 'float' || leaf.col.type === 'double') && Number.isNaN(v)) continue;
      const k = orderKey(leaf.col, v);
      if (Buffer.isBuffer(k) && k.length > 4096 && leaf.col.type !== 'uuid') { tooLong = true; continue; }
      if (min === null || cmpKey(k, minK) < 0) { min = v; minK = k; }
      if (max === null || cmpKey(k, maxK) > 0) { max = v; maxK = k; }
    }
  }
  if (tooLong) min = max = null;
  if (min !== null && (leaf.col.type === 'float' || leaf.col.type === 'double')) {
    if (min === 0) min = -0;
    if (max === 0) max = 0;
  }
  return { numValues, nulls, min, max };
}

// ---- small things ----

export function timer() {
  const t0 = performance.now();
  return () => ((performance.now() - t0) / 1000).toFixed(1) + 's';
}

// The scale of a run: INTEROP_SCALE=N multiplies row counts (default 1).
export const SCALE = Number(process.env.INTEROP_SCALE || 1);

export class Report {
  constructor(name) { this.name = name; this.failures = []; this.passes = 0; this.notes = []; }
  check(label, problems) {
    if (problems.length) {
      this.failures.push({ label, problems });
      console.log(`FAIL ${label}`);
      for (const p of problems.slice(0, 12)) console.log(`     ${p}`);
      if (problems.length > 12) console.log(`     ... ${problems.length - 12} more`);
    } else {
      this.passes++;
      if (process.env.INTEROP_VERBOSE) console.log(`ok   ${label}`);
    }
  }
  note(s) { this.notes.push(s); console.log(`note ${s}`); }
  // Removes the work directory when everything passed and INTEROP_KEEP is
  // unset; after a failure the files stay, for reproducing it.
  finish(dir) {
    if (dir) {
      if (this.failures.length || process.env.INTEROP_KEEP) console.log(`files kept in ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(`${this.name}: ${this.passes} checks passed, ${this.failures.length} failed`);
    if (this.failures.length) {
      console.log('failed:');
      for (const f of this.failures) console.log(`  ${f.label}`);
    }
    process.exitCode = this.failures.length ? 1 : 0;
  }
}
