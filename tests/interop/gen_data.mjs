// Deterministic test tables for the Parquet interop tests: a ColumnDef schema
// (the `--schema` of `hoglake parquet convert`) and rows in the value model of
// lib.mjs, for
//   scalars   every writable scalar type, nullable and required, with extremes
//   nested    structs, lists and maps nested in each other, nulls and empties
//             at every level, explicit field ids on part of the tree
//   dict      low-cardinality columns over many rows: dictionary pages and
//             several pages per chunk
//   multi_rg  many row groups (small --row-group-bytes) with chunks that are
//             all null, NaN only, zeros only, or hold a value past 4 KiB
//   fallback  more distinct strings than a 1 MiB dictionary holds: a chunk
//             whose pages turn from RLE_DICTIONARY to PLAIN
//
//   node gen_data.mjs OUTDIR [--scale N]
// writes OUTDIR/<table>.jsonl and OUTDIR/<table>.schema.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rowToJsonl, formatDate, formatTimestamp, formatTime, formatDecimal, bytesToUuid, SCALE } from './lib.mjs';

// ---- a seeded generator ----

class Rng {
  constructor(seed) { this.s = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n + 1n); }
  u64() {
    // splitmix64
    this.s = BigInt.asUintN(64, this.s + 0x9e3779b97f4a7c15n);
    let z = this.s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }
  int(n) { return Number(this.u64() % BigInt(n)); } // 0..n-1
  range(lo, hi) { // BigInt, inclusive; enough random bits for any span
    const span = hi - lo + 1n;
    let r = 0n, bits = 0n;
    while (bits < BigInt(span.toString(2).length) + 64n) { r = (r << 64n) | this.u64(); bits += 64n; }
    return lo + r % span;
  }
  chance(p) { return this.int(1000000) < p * 1000000; }
  pick(a) { return a[this.int(a.length)]; }
  double() {
    // any finite double, mostly normal, both signs
    const buf = new DataView(new ArrayBuffer(8));
    for (;;) {
      buf.setBigUint64(0, this.u64());
      const x = buf.getFloat64(0);
      if (Number.isFinite(x)) return x;
    }
  }
  float() {
    const buf = new DataView(new ArrayBuffer(4));
    for (;;) {
      buf.setUint32(0, Number(this.u64() & 0xffffffffn));
      const x = buf.getFloat32(0);
      if (Number.isFinite(x)) return x;
    }
  }
  bytes(n) { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = this.int(256); return b; }
  string(n) {
    const pool = ['a', 'b', 'z', 'A', 'Z', '0', ' ', '_', 'é', 'ß', 'Ω', '日', '本', '𝄞', '🎉', '\u{10ffff}', '\u00a0', '\t', '"', '\\'];
    let s = '';
    for (let i = 0; i < n; i++) s += this.pick(pool);
    return s;
  }
}

// ---- value ranges ----

const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n;
const INT_RANGE = {
  int8: [-128n, 127n], int16: [-32768n, 32767n], int: [-(2n ** 31n), 2n ** 31n - 1n], long: [I64_MIN, I64_MAX],
  uint8: [0n, 255n], uint16: [0n, 65535n], uint32: [0n, 2n ** 32n - 1n], uint64: [0n, 2n ** 64n - 1n],
};
// Instants our text and DuckDB both hold: years 0001..9999 (micros, millis,
// seconds); int64 nanoseconds span 1677..2262 (DuckDB keeps +-(2^63-1) for
// infinity, so stay a little inside). NS_MIN is 1677-09-22: DuckDB reads
// earlier nanosecond instants but cannot print them (parquet_metadata fails
// on the whole file), and the CLI refuses the partial second at the very
// start of the range (read_ours.mjs checks those edges on their own).
const US_MIN = -62135596800000000n; // 0001-01-01T00:00:00
const US_MAX = 253402300799999999n; // 9999-12-31T23:59:59.999999
const NS_MIN = -9223286400000000000n, NS_MAX = I64_MAX - 1n;
const DAY_MIN = -719162, DAY_MAX = 2932896; // 0001-01-01, 9999-12-31

function tsText(type, v) {
  const digits = { timestamp_s: 0, timestamp_ms: 3, timestamp: 6, timestamp_ns: 9, timestamptz: 6 }[type];
  return formatTimestamp(v, digits, type === 'timestamptz');
}

function tsRange(type) {
  switch (type) {
    case 'timestamp_s': return [US_MIN / 1000000n, US_MAX / 1000000n];
    case 'timestamp_ms': return [US_MIN / 1000n, US_MAX / 1000n];
    case 'timestamp_ns': return [NS_MIN, NS_MAX];
    default: return [US_MIN, US_MAX];
  }
}

const decMax = (p) => 10n ** BigInt(p) - 1n;

// Special values per scalar type (model form), then random ones.
function specials(col) {
  const t = col.type;
  if (INT_RANGE[t]) {
    const [lo, hi] = INT_RANGE[t];
    const s = [lo, hi, 0n, 1n, hi - 1n];
    if (lo < 0n) s.push(-1n, lo + 1n);
    if (t === 'uint64') s.push(2n ** 63n, 2n ** 63n - 1n, 2n ** 63n + 1n); // unsigned order matters
    if (t === 'uint32') s.push(2n ** 31n, 2n ** 31n - 1n);
    return s;
  }
  switch (t) {
    case 'boolean': return [true, false];
    case 'float': return [NaN, Infinity, -Infinity, -0, 0, Math.fround(3.4028234663852886e38), -Math.fround(3.4028234663852886e38),
      Math.fround(1.401298464324817e-45), Math.fround(1.1754943508222875e-38), Math.fround(0.1), Math.fround(-2.5), Math.fround(16777217)];
    case 'double': return [NaN, Infinity, -Infinity, -0, 0, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 2.2250738585072014e-308,
      0.1, -0.30000000000000004, 1e21, 1e-7, 123456789012345680000, 9007199254740993];
    case 'decimal': {
      const { precision: p, scale: s } = col.type_params;
      const m = decMax(p);
      const one = 10n ** BigInt(s) > m ? m : 10n ** BigInt(s); // 1 at the scale, or the largest value below it
      return [m, -m, 0n, 1n, -1n, m - 1n, one, -one + 1n].map((u) => formatDecimal(u, s));
    }
    case 'date': return [DAY_MIN, DAY_MAX, 0, -1, -25567 /* 1900-01-01 */, 11016 /* 2000-02-29 */, 19782 /* 2024-02-29 */].map(formatDate);
    case 'time': return [0n, 86399999999n, 45296789012n, 1n, 43200000000n].map(formatTime);
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz': {
      const [lo, hi] = tsRange(t);
      return [lo, hi, 0n, -1n, 1n, lo + 1n, hi - 1n].map((v) => tsText(t, v));
    }
    case 'string': return ['', 'a', 'A', 'Z', 'z', 'héllo wörld', '日本語テキスト', '𝄞 music 🎉', '\u{10ffff}', '\u{10ffff}\u{10ffff}', '\u0000',
      'nul\u0000inside', 'tab\tnew\nline "quoted" \\back', '\u007f\u0080\u00ff', 'ﬀ\uffff', ' leading and trailing '];
    case 'json': return ['{"a":1}', '[1,2,3]', '"str"', 'null', 'true', '-12.5e3', '{"nested":{"x":[true,false,null]},"u":"é𝄞"}', '{}', '[]', '18446744073709551615'];
    case 'uuid': return ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '7fffffff-ffff-ffff-ffff-ffffffffffff',
      '80000000-0000-0000-0000-000000000000', '123e4567-e89b-12d3-a456-426614174000'];
    case 'binary': return [new Uint8Array(0), new Uint8Array([0]), new Uint8Array([0, 0, 0xff]), new Uint8Array([0xff, 0xfe, 0x80]),
      new Uint8Array([0xc3, 0x28]), new Uint8Array(Array.from({ length: 256 }, (_, i) => i)), new Uint8Array([0xff])];
  }
  throw new Error(`no specials for ${t}`);
}

function randomScalar(col, rng) {
  const t = col.type;
  if (INT_RANGE[t]) { const [lo, hi] = INT_RANGE[t]; return rng.chance(0.5) ? rng.range(lo, hi) : rng.range(-100n > lo ? -100n : lo, 100n); }
  switch (t) {
    case 'boolean': return rng.chance(0.5);
    case 'float': return rng.chance(0.7) ? rng.float() : Math.fround((rng.int(20001) - 10000) / 8);
    case 'double': return rng.chance(0.7) ? rng.double() : (rng.int(20001) - 10000) / 16;
    case 'decimal': {
      const { precision: p, scale: s } = col.type_params;
      const m = decMax(p);
      const small = m < 1000n ? m : 1000n;
      return formatDecimal(rng.chance(0.5) ? rng.range(-m, m) : rng.range(-small, small), s);
    }
    case 'date': return formatDate(DAY_MIN + rng.int(DAY_MAX - DAY_MIN + 1));
    case 'time': return formatTime(rng.range(0n, 86399999999n));
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz': {
      const [lo, hi] = tsRange(t);
      return tsText(t, rng.range(lo, hi));
    }
    case 'string': return rng.string(rng.int(12));
    case 'json': return JSON.stringify({ k: rng.int(1000), s: rng.string(3), a: [rng.chance(0.5), null] });
    case 'uuid': return bytesToUuid(rng.bytes(16));
    case 'binary': return rng.bytes(rng.int(20));
  }
  throw new Error(`no random ${t}`);
}

// ---- the tables ----

export const SCALAR_TYPES = ['boolean', 'int8', 'int16', 'int', 'uint8', 'uint16', 'uint32', 'uint64', 'long', 'float', 'double',
  'decimal', 'date', 'time', 'timestamp_s', 'timestamp_ms', 'timestamp', 'timestamp_ns', 'timestamptz', 'string', 'json', 'uuid', 'binary'];
const DECIMALS = [[1, 0], [9, 2], [18, 4], [38, 0], [38, 10], [38, 38], [19, 19], [10, 2]];

function scalarsTable(scale) {
  const cols = [];
  for (const t of SCALAR_TYPES) {
    if (t === 'decimal') {
      for (const [p, s] of DECIMALS)
        for (const req of [false, true])
          cols.push({ name: `dec_${p}_${s}_${req ? 'r' : 'n'}`, type: 'decimal', type_params: { precision: p, scale: s }, nullable: !req });
      continue;
    }
    for (const req of [false, true]) cols.push({ name: `${t}_${req ? 'r' : 'n'}`, type: t, nullable: !req });
  }
  const rng = new Rng(1);
  const n = Math.max(64, Math.round(300 * scale));
  const rows = [];
  for (let i = 0; i < n; i++) {
    const row = {};
    for (const c of cols) {
      const sp = specials(c);
      // Required columns cycle through every special first; nullable ones
      // are null on row 1 and every 7th row, specials offset by one.
      if (c.nullable && (i === 1 || i % 7 === 3)) row[c.name] = null;
      else if (i < sp.length + 2) row[c.name] = sp[(c.nullable ? i + 1 : i) % sp.length];
      else row[c.name] = randomScalar(c, rng);
    }
    rows.push(row);
  }
  // One all-null nullable column, and one row all of whose nullable cells are null.
  cols.push({ name: 'all_null', type: 'string', nullable: true });
  for (const r of rows) r.all_null = null;
  return { name: 'scalars', columns: cols, rows, convert: [] };
}

function nestedTable(scale) {
  const cols = [
    { name: 'id', type: 'long', nullable: false },
    {
      name: 's', type: 'struct', field_id: 100, children: [
        { name: 'name', type: 'string' },
        {
          name: 'items', type: 'list', children: [{
            name: 'element', type: 'struct', children: [
              { name: 'k', type: 'int', nullable: false },
              { name: 'tags', type: 'map', children: [{ name: 'key', type: 'string', nullable: false }, { name: 'value', type: 'long' }] },
              { name: 'score', type: 'double' },
            ],
          }],
        },
        { name: 'extra', type: 'struct', children: [{ name: 'flag', type: 'boolean' }, { name: 'when', type: 'timestamptz' }] },
      ],
    },
    { name: 'll', type: 'list', children: [{ name: 'element', type: 'list', children: [{ name: 'element', type: 'int' }] }] },
    { name: 'mlv', type: 'map', children: [{ name: 'key', type: 'string', nullable: false }, { name: 'value', type: 'list', children: [{ name: 'element', type: 'string' }] }] },
    { name: 'mik', type: 'map', field_id: 500, children: [{ name: 'key', type: 'int', nullable: false, field_id: 501 }, { name: 'value', type: 'string', field_id: 502 }] },
    { name: 'mdec', type: 'map', children: [{ name: 'key', type: 'long', nullable: false }, { name: 'value', type: 'decimal', type_params: { precision: 10, scale: 2 } }] },
    { name: 'lreq', type: 'list', nullable: false, children: [{ name: 'element', type: 'long', nullable: false }] },
    {
      name: 'sreq', type: 'struct', nullable: false, children: [
        { name: 'a', type: 'int', nullable: false }, { name: 'b', type: 'string' }, { name: 'u', type: 'uuid' },
      ],
    },
    { name: 'lbin', type: 'list', children: [{ name: 'element', type: 'binary' }] },
    { name: 'ldate', type: 'list', children: [{ name: 'element', type: 'date', nullable: false }] },
    {
      name: 'deep', type: 'list', children: [{
        name: 'element', type: 'struct', children: [{
          name: 'm', type: 'map', children: [
            { name: 'key', type: 'string', nullable: false },
            { name: 'value', type: 'list', children: [{ name: 'element', type: 'struct', children: [{ name: 'x', type: 'int' }, { name: 'f', type: 'float' }] }] },
          ],
        }],
      }],
    },
  ];
  const rng = new Rng(2);
  const n = Math.max(40, Math.round(200 * scale));
  const rows = [];
  const tagsFor = (i) => [null, [], [['a', 1n]], [['x', null], ['y', -5n], ['', I64_MAX]]][i % 4];
  for (let i = 0; i < n; i++) {
    const k = i % 8;
    const item = (j) => ({ k: BigInt(j), tags: tagsFor(i + j), score: [null, -0, NaN, 1.5, j / 3][(i + j) % 5] });
    const s = [
      null,
      { name: null, items: null, extra: null },
      { name: '', items: [], extra: { flag: null, when: null } },
      { name: 'one', items: [null], extra: { flag: true, when: '1969-12-31T23:59:59.999999Z' } },
      { name: 'two', items: [item(1), null, item(2)], extra: { flag: false, when: '2024-02-29T12:00:00.000000Z' } },
      { name: 'ü', items: [item(0)], extra: null },
      { name: rng.string(5), items: Array.from({ length: 1 + rng.int(4) }, (_, j) => item(j)), extra: { flag: rng.chance(0.5), when: null } },
      { name: null, items: [item(3), item(4)], extra: { flag: null, when: '9999-12-31T23:59:59.999999Z' } },
    ][k];
    const ll = [null, [], [null], [[]], [[null]], [[1n, 2n], [3n]], [[], null, [-(2n ** 31n), 2n ** 31n - 1n]],
      Array.from({ length: rng.int(4) }, () => Array.from({ length: rng.int(3) }, () => (rng.chance(0.2) ? null : rng.range(-1000n, 1000n))))][(k + 3) % 8];
    const mlv = [null, [], [['a', null]], [['b', []]], [['c', [null, 'x']]], [['k1', ['v']], ['k2', ['w', '', null]]], [['é', ['𝄞']]], [[rng.string(3), [rng.string(2)]]]][(k + 5) % 8];
    const mik = [null, [], [[0n, null]], [[-1n, 'neg'], [2147483647n, 'max'], [-2147483648n, 'min']], [[7n, '']]][i % 5];
    const mdec = [null, [], [[I64_MIN, '-99999999.99']], [[I64_MAX, '99999999.99'], [0n, null], [1n, '0.01']]][i % 4];
    const lreq = [[], [I64_MIN], [1n, 2n, 3n], Array.from({ length: rng.int(5) }, () => rng.range(I64_MIN, I64_MAX))][i % 4];
    const sreq = { a: BigInt(i), b: i % 3 === 0 ? null : `b${i}`, u: i % 4 === 0 ? null : bytesToUuid(rng.bytes(16)) };
    const lbin = [null, [], [null], [new Uint8Array(0), new Uint8Array([0, 0])], [rng.bytes(5)]][i % 5];
    const ldate = [null, [], [formatDate(DAY_MIN), formatDate(0), formatDate(DAY_MAX)], [formatDate(rng.int(40000))]][i % 4];
    const deep = [null, [], [null], [{ m: null }], [{ m: [] }], [{ m: [['p', null], ['q', []], ['r', [null, { x: null, f: null }, { x: 5n, f: -0 }]]] }],
      [{ m: [['z', [{ x: -7n, f: NaN }]]] }, null, { m: [['y', [{ x: 2147483647n, f: Math.fround(0.1) }]]] }]][i % 7];
    rows.push({ id: BigInt(i), s, ll, mlv, mik, mdec, lreq, sreq, lbin, ldate, deep });
  }
  return { name: 'nested', columns: cols, rows, convert: [] };
}

function dictTable(scale) {
  const cols = [
    { name: 'id', type: 'long', nullable: false },
    { name: 'cat', type: 'string', nullable: false },
    { name: 'city', type: 'string' },
    { name: 'code', type: 'int' },
    { name: 'big', type: 'long' },
    { name: 'u64', type: 'uint64' },
    { name: 'price', type: 'decimal', type_params: { precision: 12, scale: 2 } },
    { name: 'ratio', type: 'double' },
    { name: 'f', type: 'float' },
    { name: 'day', type: 'date' },
    { name: 'ts', type: 'timestamp' },
    { name: 'tz', type: 'timestamptz' },
    { name: 'ns', type: 'timestamp_ns' },
    { name: 'uid', type: 'uuid' },
    { name: 'blob', type: 'binary' },
    { name: 'flag', type: 'boolean' },
    { name: 'small', type: 'int8' },
    { name: 'tags', type: 'list', children: [{ name: 'element', type: 'string' }] },
    { name: 'attrs', type: 'map', children: [{ name: 'key', type: 'string', nullable: false }, { name: 'value', type: 'int16' }] },
  ];
  const rng = new Rng(3);
  const n = Math.max(1000, Math.round(4000 * scale));
  const cats = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'ζήτα', '𝄞-music', '', 'x'.repeat(200), 'omega'];
  const cities = ['Paris', 'Zürich', 'Tōkyō', 'New York', 'São Paulo', null];
  const bigs = Array.from({ length: 40 }, () => rng.range(I64_MIN, I64_MAX)).concat([I64_MIN, I64_MAX]);
  const u64s = [0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 12345678901234567890n];
  const prices = ['0.00', '9999999999.99', '-9999999999.99', '19.99', '5.00', '0.01'];
  const ratios = [0.5, -0, 0, NaN, Infinity, 1e-300, 3.14];
  const fs_ = [Math.fround(1.5), Math.fround(-0.25), NaN, -0, Math.fround(1e30)];
  const uuids = Array.from({ length: 5 }, () => bytesToUuid(rng.bytes(16)));
  const blobs = [new Uint8Array(0), new Uint8Array([0]), new Uint8Array([1, 2, 3]), new Uint8Array([0xff, 0, 0xff])];
  const tsv = Array.from({ length: 12 }, () => rng.range(-2000000000000000n, 4000000000000000n));
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push({
      id: BigInt(i),
      cat: cats[i % cats.length],
      city: rng.pick(cities),
      code: rng.chance(0.1) ? null : BigInt(rng.int(50) - 25),
      big: rng.chance(0.05) ? null : rng.pick(bigs),
      u64: rng.pick(u64s),
      price: rng.chance(0.05) ? null : rng.pick(prices),
      ratio: rng.pick(ratios),
      f: rng.pick(fs_),
      day: formatDate(18000 + rng.int(30)),
      ts: tsText('timestamp', rng.pick(tsv)),
      tz: tsText('timestamptz', rng.pick(tsv)),
      ns: tsText('timestamp_ns', rng.pick(tsv) * 1000n + 999n),
      uid: rng.pick(uuids),
      blob: rng.pick(blobs),
      flag: rng.chance(0.1) ? null : rng.chance(0.5),
      small: rng.chance(0.3) ? null : BigInt(rng.int(5)),
      tags: rng.chance(0.1) ? null : Array.from({ length: rng.int(4) }, () => rng.pick(cats.slice(0, 4))),
      attrs: rng.chance(0.1) ? null : Array.from({ length: rng.int(3) }, (_, j) => [['k0', 'k1', 'k2'][j], BigInt(rng.int(3))]),
    });
  }
  return { name: 'dict', columns: cols, rows, convert: ['--page-bytes', '4096'] };
}

function multiRgTable(scale) {
  const cols = [
    { name: 'id', type: 'long', nullable: false },
    { name: 'phase', type: 'int', nullable: false },
    { name: 'maybe', type: 'string' },
    { name: 'd', type: 'double' },
    { name: 'f', type: 'float' },
    { name: 'text', type: 'string' },
    { name: 'u64', type: 'uint64' },
    { name: 'dec', type: 'decimal', type_params: { precision: 38, scale: 5 } },
    { name: 'nums', type: 'list', children: [{ name: 'element', type: 'long' }] },
    { name: 'st', type: 'struct', children: [{ name: 'a', type: 'int' }, { name: 'b', type: 'binary' }] },
  ];
  const rng = new Rng(4);
  // Phases (rows in order): 0 all nulls; 1 NaN floats only; 2 zeros only
  // (both signs); 3 random, with a value past 4 KiB now and then; 4 uint64
  // above 2^63 only; 5 random. Cheap phases are long enough to fill whole
  // row groups on their own at --row-group-bytes 16384.
  const cheap = Math.max(1500, Math.round(1500 * scale)), dear = Math.max(150, Math.round(300 * scale));
  const lens = [cheap, cheap, cheap, dear, dear, dear];
  const rows = [];
  const long = 'L'.repeat(5000);
  let i = 0;
  for (let ph = 0; ph < lens.length; ph++) {
    for (let j = 0; j < lens[ph]; j++, i++) {
      const rand = ph >= 3;
      rows.push({
        id: BigInt(i),
        phase: BigInt(ph),
        maybe: rand && rng.chance(0.5) ? `m${rng.int(100000)}` : null,
        d: ph === 0 ? null : ph === 1 ? NaN : ph === 2 ? (i % 2 ? -0 : 0) : rng.chance(0.02) ? NaN : rng.double(),
        f: ph === 0 ? null : ph === 1 ? NaN : ph === 2 ? (i % 3 ? 0 : -0) : rng.float(),
        text: !rand ? null : ph === 3 && j % 97 === 5 ? long : rng.string(1 + rng.int(30)),
        u64: !rand ? null : ph === 4 ? rng.range(2n ** 63n, 2n ** 64n - 1n) : rng.range(0n, 2n ** 64n - 1n),
        dec: !rand ? null : formatDecimal(rng.range(-(10n ** 38n) + 1n, 10n ** 38n - 1n), 5),
        nums: !rand ? null : Array.from({ length: rng.int(4) }, () => (rng.chance(0.1) ? null : rng.range(I64_MIN, I64_MAX))),
        st: !rand ? (ph === 2 ? { a: null, b: null } : null) : { a: rng.chance(0.2) ? null : rng.range(-(2n ** 31n), 2n ** 31n - 1n), b: rng.chance(0.2) ? null : rng.bytes(rng.int(40)) },
      });
    }
  }
  return { name: 'multi_rg', columns: cols, rows, convert: ['--row-group-bytes', '16384', '--page-bytes', '4096'] };
}

// Enough distinct strings to pass the writer's 1 MiB dictionary limit in
// one chunk: the chunk starts dictionary-encoded and falls back to PLAIN.
// Light: one file (ZSTD, dictionaries on) is enough for what it tests, and
// only read_ours.mjs uses it.
function fallbackTable(scale) {
  const cols = [
    { name: 'id', type: 'long', nullable: false },
    { name: 'key', type: 'string' },
    { name: 'grp', type: 'int' },
  ];
  const rng = new Rng(5);
  const n = Math.max(40000, Math.round(40000 * scale));
  const rows = [];
  for (let i = 0; i < n; i++)
    rows.push({ id: BigInt(i), key: i % 101 === 7 ? null : `key-${String(i).padStart(8, '0')}-${rng.u64().toString(16).padStart(16, '0')}-${'ü'.repeat(i % 9)}`, grp: BigInt(i % 13) });
  return { name: 'fallback', columns: cols, rows, convert: ['--page-bytes', '65536'], light: true };
}

export function tables(scale = SCALE) {
  return [scalarsTable(scale), nestedTable(scale), dictTable(scale), multiRgTable(scale), fallbackTable(scale)];
}

export function writeTable(dir, t) {
  const jsonl = path.join(dir, `${t.name}.jsonl`);
  const schema = path.join(dir, `${t.name}.schema.json`);
  fs.writeFileSync(jsonl, t.rows.map((r) => rowToJsonl(t.columns, r)).join('\n') + '\n');
  fs.writeFileSync(schema, JSON.stringify(t.columns, null, 1));
  return { jsonl, schema };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node gen_data.mjs OUTDIR [--scale N]');
    process.exit(2);
  }
  const si = process.argv.indexOf('--scale');
  const scale = si > 0 ? Number(process.argv[si + 1]) : SCALE;
  fs.mkdirSync(out, { recursive: true });
  for (const t of tables(scale)) {
    const f = writeTable(out, t);
    console.log(`${t.name}: ${t.rows.length} rows, ${t.columns.length} columns -> ${f.jsonl}`);
  }
}
