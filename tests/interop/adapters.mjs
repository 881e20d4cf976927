// Readers' values brought to the canonical form of lib.mjs (canonModel), one
// adapter per reader, driven by the hoglake column type the value should be.
// A value an adapter cannot place (wrong class, inexact unit change) comes out
// as a string starting with "!" that never equals a canonical value, so the
// comparison reports it with the row and path.
import {
  INT_TYPES, TS_DIGITS, JNum, canonFloat, formatDate, formatTime, formatTimestamp, parseTimestamp, parseTime, parseDate,
  formatDecimal, parseDecimal, toBase64, shortestDigits, sigDigits, pyReprLayout, show,
} from './lib.mjs';

const POW10 = (n) => 10n ** BigInt(n);

// An instant held in 10^-from seconds, as the column's canonical text.
export function tsCanon(col, v, from) {
  const to = TS_DIGITS[col.type];
  v = BigInt(v);
  let w;
  if (from === to) w = v;
  else if (from > to) {
    const d = POW10(from - to);
    if (v % d !== 0n) return `!${v} in 10^-${from} s is not whole in 10^-${to} s`;
    w = v / d;
  } else w = v * POW10(to - from);
  return formatTimestamp(w, to, col.type === 'timestamptz');
}

const bad = (col, v, why = '') => `!${col.type}: unexpected ${show(v)}${why ? ' (' + why + ')' : ''}`;

// ---- DuckDB (DuckDBValue objects from result.getRows()) ----

export function duckCanon(col, v) {
  if (v === null || v === undefined) return null;
  const cls = v?.constructor?.name;
  switch (col.type) {
    case 'boolean': return typeof v === 'boolean' ? String(v) : bad(col, v);
    case 'float': case 'double': return typeof v === 'number' ? canonFloat(v) : bad(col, v);
    case 'decimal':
      if (cls !== 'DuckDBDecimalValue') return bad(col, v);
      if (v.scale !== col.type_params.scale) return `!decimal scale ${v.scale}: ${v.toString()}`;
      return formatDecimal(v.value, v.scale);
    case 'date': return cls === 'DuckDBDateValue' ? formatDate(v.days) : bad(col, v);
    case 'time':
      if (cls === 'DuckDBTimeValue') return formatTime(v.micros);
      if (cls === 'DuckDBTimeTZValue') return v.offset === 0 ? formatTime(v.micros) : `!timetz offset ${v.offset}`;
      return bad(col, v);
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz':
      if (cls === 'DuckDBTimestampValue' || cls === 'DuckDBTimestampTZValue') return tsCanon(col, v.micros, 6);
      if (cls === 'DuckDBTimestampMillisecondsValue') return tsCanon(col, v.millis, 3);
      if (cls === 'DuckDBTimestampNanosecondsValue') return tsCanon(col, v.nanos, 9);
      if (cls === 'DuckDBTimestampSecondsValue') return tsCanon(col, v.seconds, 0);
      return bad(col, v);
    case 'uuid': return cls === 'DuckDBUUIDValue' ? v.toString() : bad(col, v);
    case 'binary': return cls === 'DuckDBBlobValue' ? toBase64(v.bytes) : bad(col, v);
    case 'string': case 'json': return typeof v === 'string' ? v : bad(col, v);
    case 'struct': {
      if (cls !== 'DuckDBStructValue') return bad(col, v);
      const o = {};
      for (const k of col.children) o[k.name] = duckCanon(k, v.entries[k.name]);
      return o;
    }
    case 'list': return cls === 'DuckDBListValue' ? v.items.map((e) => duckCanon(col.children[0], e)) : bad(col, v);
    case 'map':
      if (cls !== 'DuckDBMapValue') return bad(col, v);
      return v.entries.map((e) => [duckCanon(col.children[0], e.key), duckCanon(col.children[1], e.value)]);
    default:
      if (INT_TYPES.has(col.type)) return typeof v === 'number' || typeof v === 'bigint' ? BigInt(v).toString() : bad(col, v);
  }
  return bad(col, v, 'no adapter');
}

// A statistics bound as DuckDB's parquet_metadata prints it (stats_min_value).
export function duckStatCanon(col, s) {
  if (s === null || s === undefined) return null;
  try {
    switch (col.type) {
      case 'boolean': return s;
      case 'float': case 'double': {
        const x = { inf: Infinity, '-inf': -Infinity, nan: NaN, infinity: Infinity, '-infinity': -Infinity }[s.toLowerCase()] ?? Number(s);
        if (Number.isNaN(x) && s.toLowerCase() !== 'nan') return `!unparsed ${s}`;
        return canonFloat(col.type === 'float' ? Math.fround(x) : x);
      }
      case 'decimal': // DuckDB prints decimal(p, p) bounds as "-.99"
        return formatDecimal(parseDecimal(s.replace(/^(-?)\./, '$10.'), col.type_params.scale), col.type_params.scale);
      case 'date': parseDate(s); return s;
      case 'time': return formatTime(parseTime(s.replace(/\+00(:00)?$/, '')));
      case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz':
        return formatTimestamp(parseTimestamp(s, TS_DIGITS[col.type]), TS_DIGITS[col.type], col.type === 'timestamptz');
      case 'uuid': return s;
      case 'string': case 'json': return s;
      case 'binary': return toBase64(duckBlobText(s));
      default: if (INT_TYPES.has(col.type)) return BigInt(s).toString();
    }
  } catch (e) {
    return `!${e.message}`;
  }
  return `!no stat adapter for ${col.type}`;
}

// DuckDB prints a BLOB with printable ASCII as is and other bytes as \xHH.
export function duckBlobText(s) {
  const out = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === 'x' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 2, i + 4))) {
      out.push(parseInt(s.slice(i + 2, i + 4), 16));
      i += 3;
    } else out.push(...Buffer.from(s[i], 'utf8'));
  }
  return new Uint8Array(out);
}

// ---- hyparquet (parquetReadObjects with hyParsers, utf8: false) ----

const dec = new TextDecoder();
// Parsers that keep every value exact where hyparquet lets us: instants as
// integers with their unit, dates as days, JSON as its text.
export const hyParsers = {
  timestampFromMilliseconds: (v) => ({ ts: BigInt(v), digits: 3 }),
  timestampFromMicroseconds: (v) => ({ ts: BigInt(v), digits: 6 }),
  timestampFromNanoseconds: (v) => ({ ts: BigInt(v), digits: 9 }),
  dateFromDays: (d) => ({ days: d }),
  stringFromBytes: (b) => b && dec.decode(b),
  jsonFromBytes: (b) => b && dec.decode(b),
};
// For metadata: byte-array statistics as raw bytes.
export const hyMetaParsers = { ...hyParsers, stringFromBytes: (b) => b };

// What hyparquet can represent, for canonModel(col, v, hyView): decimals
// become Numbers (unscaled / 10^scale, as hyparquet computes them), maps
// become objects keyed by String(key) (so compared as sorted pairs).
export const hyView = {
  decimalAsNumber: true,
  // The canonical keys of the types our tables use as map keys (ints in
  // decimal, strings) are already what String(key) gives in JS.
  mapAsObject: (col, pairs) => [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
};

export function hyCanon(col, v) {
  if (v === null || v === undefined) return null;
  switch (col.type) {
    case 'boolean': return typeof v === 'boolean' ? String(v) : bad(col, v);
    case 'float': case 'double': case 'decimal': return typeof v === 'number' ? canonFloat(v) : bad(col, v);
    case 'date': return v && typeof v.days === 'number' ? formatDate(v.days) : bad(col, v);
    case 'time': return typeof v === 'bigint' || typeof v === 'number' ? formatTime(BigInt(v)) : bad(col, v);
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz':
      return v && typeof v.ts === 'bigint' ? tsCanon(col, v.ts, v.digits) : bad(col, v);
    case 'uuid': return typeof v === 'string' ? v : bad(col, v);
    case 'binary': return v instanceof Uint8Array ? toBase64(v) : bad(col, v);
    case 'string': case 'json': return typeof v === 'string' ? v : bad(col, v);
    case 'struct': {
      if (typeof v !== 'object') return bad(col, v);
      const o = {};
      for (const k of col.children) o[k.name] = hyCanon(k, v[k.name]);
      return o;
    }
    case 'list': return Array.isArray(v) ? v.map((e) => hyCanon(col.children[0], e)) : bad(col, v);
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return bad(col, v);
      return Object.keys(v).map((k) => [k, hyCanon(col.children[1], v[k])]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    }
    default:
      if (INT_TYPES.has(col.type)) return typeof v === 'number' || typeof v === 'bigint' ? BigInt(v).toString() : bad(col, v);
  }
  return bad(col, v, 'no adapter');
}

// A statistics bound from hyparquet's metadata (hyMetaParsers): typed values
// for numbers, instants and dates, raw bytes for byte arrays.
export function hyStatCanon(col, v) {
  if (v === null || v === undefined) return null;
  switch (col.type) {
    case 'string': case 'json': return v instanceof Uint8Array ? dec.decode(v) : bad(col, v);
    case 'binary': return v instanceof Uint8Array ? toBase64(v) : bad(col, v);
    default: return hyCanon(col, v);
  }
}

// ---- our own `cat` output (parseJsonExact) ----

// Instants print at the unit of the file's column, which is not always the
// catalog type's: digitsOf(col) gives it (undefined: the type's own).
export const oursDigits = (c) => (c.type === 'timestamp_s' ? 3 : undefined);

// Also checks the text itself: floats as short as the shortest round-trip
// text, decimals and instants in their canonical layout.
export function catCanon(col, v, digitsOf = oursDigits) {
  if (v === null || v === undefined) return null;
  const num = v instanceof JNum ? v.text : null;
  switch (col.type) {
    case 'boolean': return typeof v === 'boolean' ? String(v) : bad(col, v);
    case 'float': case 'double': {
      const single = col.type === 'float';
      if (typeof v === 'string') return ['NaN', 'Infinity', '-Infinity'].includes(v) ? v : bad(col, v);
      if (num === null) return bad(col, v);
      const x = single ? Math.fround(Number(num)) : Number(num);
      if (x === 0) return num === '-0.0' ? '-0' : num === '0.0' ? '0' : `!zero as ${num}`;
      // as short as the shortest text that reads back (ties may round either way)
      const want = shortestDigits(x, single);
      if (sigDigits(num).length !== want.length) return `!${num} is not the shortest text of ${x} (${want})`;
      if (pyReprLayout(num) !== num) return `!${num} is not in Python repr layout (${pyReprLayout(num)})`;
      return canonFloat(x);
    }
    case 'decimal': {
      if (typeof v !== 'string') return bad(col, v, 'decimals are strings');
      const s = col.type_params.scale;
      const c = formatDecimal(parseDecimal(v, s), s);
      return c === v ? c : `!decimal text ${v} (canonical ${c})`;
    }
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': case 'timestamp_ns': case 'timestamptz': {
      if (typeof v !== 'string') return bad(col, v);
      const digits = digitsOf(col) ?? TS_DIGITS[col.type];
      try {
        const iv = parseTimestamp(v, digits);
        const back = formatTimestamp(iv, digits, col.type === 'timestamptz');
        if (back !== v) return `!timestamp text ${v} (canonical ${back})`;
        return tsCanon(col, iv, digits);
      } catch (e) { return `!${e.message}`; }
    }
    case 'binary': case 'date': case 'time': case 'uuid': case 'string': case 'json': return typeof v === 'string' ? v : bad(col, v);
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v) || v instanceof JNum) return bad(col, v);
      const keys = v.__keys || Object.keys(v);
      const want = col.children.map((k) => k.name);
      if (keys.join('\u0000') !== want.join('\u0000')) return `!struct fields ${keys} (want ${want})`;
      const o = {};
      for (const k of col.children) o[k.name] = catCanon(k, v[k.name], digitsOf);
      return o;
    }
    case 'list': return Array.isArray(v) ? v.map((e) => catCanon(col.children[0], e, digitsOf)) : bad(col, v);
    case 'map': {
      const [kc, vc] = col.children;
      if (kc.type === 'string') {
        if (typeof v !== 'object' || Array.isArray(v) || v instanceof JNum) return bad(col, v, 'string-keyed maps are objects');
        return (v.__keys || Object.keys(v)).map((k) => [k, catCanon(vc, v[k], digitsOf)]);
      }
      if (!Array.isArray(v)) return bad(col, v, 'maps with other keys are arrays');
      return v.map((e) => {
        const ks = e && (e.__keys || Object.keys(e));
        if (!ks || ks.join(',') !== 'key,value') return [bad(col, e, 'entry'), null];
        return [catCanon(kc, e.key, digitsOf), catCanon(vc, e.value, digitsOf)];
      });
    }
    default:
      if (INT_TYPES.has(col.type)) return num !== null && /^-?\d+$/.test(num) ? BigInt(num).toString() : bad(col, v, 'integers are JSON integers');
  }
  return bad(col, v, 'no adapter');
}

// Rows of `cat` output as canonical rows; a row whose keys are not the
// columns in order gets a "!" under __order.
export function catRows(columns, rows, digitsOf = oursDigits) {
  const names = columns.map((c) => c.name).join(',');
  return rows.map((row) => {
    const o = Object.fromEntries(columns.map((c) => [c.name, catCanon(c, row[c.name] ?? null, digitsOf)]));
    if ((row.__keys || []).join(',') !== names) o.__order = `!keys ${row.__keys}`;
    return o;
  });
}

// A statistics bound from `hoglake parquet inspect --json` (parseJsonExact):
// the cat conventions, binary as lowercase hex; timestamp_s (milliseconds in
// the file) prints with 3 digits.
export function inspectStatCanon(col, v) {
  if (v === null || v === undefined) return null;
  if (col.type === 'binary') return typeof v === 'string' && /^([0-9a-f]{2})*$/.test(v) ? toBase64(Buffer.from(v, 'hex')) : bad(col, v, 'binary bounds are hex');
  if (col.type === 'float' || col.type === 'double') {
    if (typeof v === 'string') return ['NaN', 'Infinity', '-Infinity'].includes(v) ? v : bad(col, v);
    if (!(v instanceof JNum)) return bad(col, v);
    const x = col.type === 'float' ? Math.fround(Number(v.text)) : Number(v.text);
    return canonFloat(x);
  }
  return catCanon(col, v);
}

