// The page index, checked by independent readers (docs/parquet.md):
//
// - hyparquet's readOffsetIndex and readColumnIndex read the index of a file
//   `hoglake parquet convert` wrote, and every page location, first row,
//   null page, null count, boundary order and bound must equal what our
//   reader hands out (pageindex_dump, PAGEINDEX_DUMP);
// - the bounds must hold: every value hyparquet reads from a page's rows lies
//   between the page's bounds, and the page's null count is its rows' nulls;
// - rows read by row ranges through the offset index (pageindex_dump G
//   RANGES COLS) must be DuckDB's rows at those positions, for our file and
//   for one DuckDB wrote (DuckDB writes no page index: our reader then reads
//   its chunks whole, and says so).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Report, hoglakeOk, loadDuckDB, loadHyparquet, timer, workDir } from './lib.mjs';

const dumpBin = process.env.PAGEINDEX_DUMP;
if (!dumpBin) throw new Error('PAGEINDEX_DUMP (the pageindex_dump binary) is not set');
const report = new Report('interop.pageindex');
const elapsed = timer();
const dir = workDir('pageindex');
const hp = await loadHyparquet();
const duckdb = await loadDuckDB();
const conn = await (await duckdb.DuckDBInstance.create(':memory:', { threads: '1' })).connect();

function dump(args) {
  const r = spawnSync(dumpBin, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`pageindex_dump ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// ---- the data: sorted, unordered, nullable, long and nested columns ----

const ROWS = 60000;
const columns = [
  { name: 'id', type: 'long', nullable: false },
  { name: 'grp', type: 'int' },
  { name: 'name', type: 'string', nullable: false },
  { name: 'note', type: 'string' },
  { name: 'flag', type: 'boolean' },
  { name: 'tags', type: 'list', children: [{ name: 'element', type: 'string' }] },
];
const longText = (i) => 'a' + 'é'.repeat(2100) + String(i).padStart(6, '0');
function row(i) {
  return {
    id: i,
    grp: i % 7 === 3 ? null : ((i * 7919) % 1009) - (Math.floor(i / 5000) % 2 ? 2000 : 0),
    name: 'k' + String(Math.floor(i / 3)).padStart(8, '0'),
    // a run of nulls long enough to fill pages, and long values past the
    // bound length now and then
    note: i >= 20000 && i < 26000 ? null : i % 997 === 0 ? longText(i) : `n${i % 113}`,
    flag: i % 11 === 0 ? null : i % 2 === 0,
    tags: i % 5 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => (k === 1 ? null : `t${(i + k) % 17}`)),
  };
}
const jsonl = path.join(dir, 'in.jsonl');
const schema = path.join(dir, 'schema.json');
fs.writeFileSync(schema, JSON.stringify(columns));
fs.writeFileSync(jsonl, Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i))).join('\n') + '\n');
const ours = path.join(dir, 'ours.parquet');
hoglakeOk(['parquet', 'convert', jsonl, ours, '--schema', '@' + schema, '--page-bytes', '16384',
  '--row-group-bytes', '1000000', '--force']);

// ---- our index against hyparquet's ----

const hex = (b) => Buffer.from(b).toString('hex');
const hexParsers = { stringFromBytes: (b) => (b === undefined ? b : hex(b)) };

// Our hex bound as hyparquet types it (byte arrays stay hex, through
// hexParsers).
function typed(type, h) {
  const b = Buffer.from(h, 'hex');
  if (type === 'INT64') return b.length === 8 ? b.readBigInt64LE(0) : h;
  if (type === 'INT32') return b.length === 4 ? b.readInt32LE(0) : h;
  if (type === 'BOOLEAN') return b.length ? b[0] === 1 : false;
  return h;
}

function compareIndexes(label, file, ourIndex) {
  const buf = fs.readFileSync(file);
  const meta = hp.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const leaves = meta.schema.filter((e) => e.num_children === undefined);
  const probs = [];
  let offsetIndexes = 0, columnIndexes = 0;
  meta.row_groups.forEach((rg, g) => {
    const og = ourIndex.row_groups[g];
    if (String(og.num_rows) !== String(rg.num_rows)) probs.push(`rg ${g}: ${og.num_rows} rows, hyparquet ${rg.num_rows}`);
    rg.columns.forEach((cc, c) => {
      const oc = og.columns[c];
      const where = `rg ${g} ${oc.path}`;
      if ((cc.offset_index_offset !== undefined) !== (oc.offsets !== null))
        probs.push(`${where}: offset index ${cc.offset_index_offset !== undefined ? 'in the footer' : 'absent'}, ours ${oc.offsets ? 'read' : 'none'}`);
      if (cc.offset_index_offset !== undefined && oc.offsets) {
        offsetIndexes++;
        const oi = hp.readOffsetIndex({ view, offset: Number(cc.offset_index_offset) });
        const locs = oi.page_locations;
        if (locs.length !== oc.offsets.length) probs.push(`${where}: ${locs.length} pages, ours ${oc.offsets.length}`);
        locs.forEach((l, p) => {
          const o = oc.offsets[p] || [];
          if (String(l.offset) !== o[0] || l.compressed_page_size !== o[1] || String(l.first_row_index) !== o[2])
            probs.push(`${where} page ${p}: hyparquet ${l.offset}+${l.compressed_page_size} row ${l.first_row_index}, ours ${o.join(' ')}`);
        });
      }
      if ((cc.column_index_offset !== undefined) !== (oc.bounds !== null))
        probs.push(`${where}: column index ${cc.column_index_offset !== undefined ? 'in the footer' : 'absent'}, ours ${oc.bounds ? 'read' : 'none'}`);
      if (cc.column_index_offset !== undefined && oc.bounds) {
        columnIndexes++;
        const el = leaves[c];
        const ci = hp.readColumnIndex({ view, offset: Number(cc.column_index_offset) }, el, hexParsers);
        const b = oc.bounds;
        if (ci.boundary_order !== b.order) probs.push(`${where}: order ${ci.boundary_order}, ours ${b.order}`);
        if (JSON.stringify(ci.null_pages) !== JSON.stringify(b.null_pages)) probs.push(`${where}: null pages differ`);
        const counts = ci.null_counts ? ci.null_counts.map(String) : null;
        if (JSON.stringify(counts) !== JSON.stringify(b.null_counts)) probs.push(`${where}: null counts ${counts}, ours ${b.null_counts}`);
        for (let p = 0; p < ci.null_pages.length; p++) {
          for (const [k, theirs] of [['min', ci.min_values[p]], ['max', ci.max_values[p]]]) {
            const mine = typed(el.type, b[k][p]);
            if (theirs !== mine) probs.push(`${where} page ${p}: ${k} ${String(theirs).slice(0, 40)}, ours ${String(mine).slice(0, 40)}`);
          }
        }
      }
    });
  });
  report.check(`${label}: hyparquet reads the page index our reader reads`, probs);
  return { meta, buf, offsetIndexes, columnIndexes };
}

// ---- the bounds hold: hyparquet's values of each page's rows ----

const utf8Hex = (s) => Buffer.from(s, 'utf8').toString('hex');
const cmpHex = (a, b) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

async function checkBounds(label, meta, buf, ourIndex) {
  const rows = await hp.parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors: hp.compressors });
  const probs = [];
  let start = 0, pages = 0;
  meta.row_groups.forEach((rg, g) => {
    for (const oc of ourIndex.row_groups[g].columns) {
      if (!oc.bounds) continue;
      const [top] = oc.path.split('.');
      const nested = oc.path !== top;
      oc.offsets.forEach((loc, p) => {
        pages++;
        const first = Number(loc[2]);
        const end = p + 1 < oc.offsets.length ? Number(oc.offsets[p + 1][2]) : Number(rg.num_rows);
        const values = [];
        let nulls = 0;
        for (let r = start + first; r < start + end; r++) {
          const v = rows[r][top];
          if (!nested) {
            if (v === null || v === undefined) nulls++;
            else values.push(v);
          } else if (Array.isArray(v)) {
            for (const e of v) if (e !== null) values.push(e);
          }
        }
        if (!nested && String(nulls) !== oc.bounds.null_counts[p]) probs.push(`${oc.path} page ${p}: ${nulls} nulls in its rows, the index says ${oc.bounds.null_counts[p]}`);
        if (oc.bounds.null_pages[p] !== (values.length === 0 && !nested)) {
          if (!nested || values.length) probs.push(`${oc.path} page ${p}: null page ${oc.bounds.null_pages[p]} for ${values.length} values`);
        }
        if (oc.bounds.null_pages[p]) return;
        const min = oc.bounds.min[p], max = oc.bounds.max[p];
        for (const v of values) {
          let lo, hi;
          if (typeof v === 'string') {
            lo = cmpHex(min, utf8Hex(v)) <= 0;
            hi = cmpHex(utf8Hex(v), max) <= 0;
          } else {
            const t = typed(oc.type, min), u = typed(oc.type, max);
            lo = t <= (typeof t === 'bigint' ? BigInt(v) : v);
            hi = (typeof u === 'bigint' ? BigInt(v) : v) <= u;
          }
          if (!lo || !hi) {
            probs.push(`${oc.path} page ${p}: ${String(v).slice(0, 30)} lies outside its bounds`);
            break;
          }
        }
      });
    }
    start += Number(rg.num_rows);
  });
  report.check(`${label}: every page's values lie within its bounds (${pages} pages)`, probs);
}

// ---- rows by ranges against DuckDB's ----

const FLAT = ['id', 'grp', 'name', 'note', 'flag'];

async function duckRows(file, globalRanges, cols) {
  const where = globalRanges.map(([b, e]) => `(file_row_number >= ${b} AND file_row_number < ${e})`).join(' OR ');
  const sel = cols.map((c) => `CAST("${c}" AS VARCHAR) AS "${c}"`).join(', ');
  const r = await conn.runAndReadAll(`SELECT ${sel} FROM read_parquet('${file}', file_row_number = true) WHERE ${where} ORDER BY file_row_number`);
  return r.getRows().map((row) => row.map((v) => (v === null ? '\\N' : String(v))).join('\t'));
}

// Every third page of the first column, a single row and a span across a
// page boundary of row group g (or, without an offset index, a few spans).
function rangesFor(ourIndex, g) {
  const rg = ourIndex.row_groups[g];
  const n = Number(rg.num_rows);
  const offs = rg.columns[0].offsets;
  const out = [];
  if (offs && offs.length > 2) {
    for (let p = 0; p < offs.length; p += 3)
      out.push([Number(offs[p][2]), p + 1 < offs.length ? Number(offs[p + 1][2]) : n]);
    const b = Number(offs[2][2]);
    out.push([b - 3, b + 3]);
  } else {
    out.push([0, 1], [Math.floor(n / 2), Math.floor(n / 2) + 100], [n - 1, n]);
  }
  out.sort((x, y) => x[0] - y[0]);
  const merged = [];
  for (const r of out) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return merged;
}

async function compareRanges(label, file, meta, ourIndex, cols, expectWhole) {
  const probs = [];
  let start = 0, read = 0, skipped = 0, whole = 0, rowsCompared = 0;
  for (let g = 0; g < meta.row_groups.length; g++) {
    const ranges = rangesFor(ourIndex, g);
    const out = dump([file, String(g), ranges.map(([b, e]) => `${b}-${e}`).join(','), cols.join(',')]).split('\n');
    out.pop();
    const stats = out.pop().split(' ').slice(1).map(Number);
    read += stats[0]; skipped += stats[1]; whole += stats[2];
    const want = await duckRows(file, ranges.map(([b, e]) => [start + b, start + e]), cols);
    if (want.length !== out.length) probs.push(`rg ${g}: ${out.length} rows by ranges, DuckDB ${want.length}`);
    for (let i = 0; i < Math.min(want.length, out.length); i++)
      if (want[i] !== out[i]) { probs.push(`rg ${g} row ${i}: ours ${out[i].slice(0, 80)}, DuckDB ${want[i].slice(0, 80)}`); break; }
    rowsCompared += want.length;
    start += Number(meta.row_groups[g].num_rows);
  }
  if (expectWhole) {
    if (read !== 0 || whole !== cols.length * meta.row_groups.length)
      probs.push(`without an index: ${read} pages read by it, ${whole} chunks whole`);
  } else if (!(read > 0 && skipped > 0 && whole === 0)) {
    probs.push(`pages read ${read}, skipped ${skipped}, chunks read whole ${whole}`);
  }
  report.check(`${label}: rows read by ranges are DuckDB's (${rowsCompared} rows; pages read ${read}, skipped ${skipped})`, probs);
}

const ourIndex = JSON.parse(dump([ours]));
const o = compareIndexes('ours', ours, ourIndex);
{
  const probs = [];
  const leaves = ourIndex.row_groups[0].columns.length;
  if (o.offsetIndexes !== leaves * o.meta.row_groups.length) probs.push(`${o.offsetIndexes} offset indexes`);
  if (o.columnIndexes !== leaves * o.meta.row_groups.length) probs.push(`${o.columnIndexes} column indexes`);
  if (o.meta.row_groups.length < 2) probs.push(`${o.meta.row_groups.length} row groups`);
  report.check(`ours: every chunk of ${o.meta.row_groups.length} row groups has both indexes`, probs);
}
await checkBounds('ours', o.meta, o.buf, ourIndex);
await compareRanges('ours', ours, o.meta, ourIndex, FLAT, false);

// DuckDB's file: the same rows.
const duck = path.join(dir, 'duck.parquet');
await conn.run(`COPY (SELECT * FROM read_json('${jsonl}', columns = {id: 'BIGINT', grp: 'INTEGER', name: 'VARCHAR', note: 'VARCHAR', flag: 'BOOLEAN', tags: 'VARCHAR[]'})) TO '${duck}' (FORMAT parquet, ROW_GROUP_SIZE 20000)`);
const duckIndex = JSON.parse(dump([duck]));
const d = compareIndexes('DuckDB', duck, duckIndex);
if (d.offsetIndexes === 0) report.note('DuckDB wrote no page index: its chunks are read whole');
else await checkBounds('DuckDB', d.meta, d.buf, duckIndex);
await compareRanges('DuckDB', duck, d.meta, duckIndex, FLAT, d.offsetIndexes === 0);

console.log(`time: ${elapsed()}`);
report.finish(dir);
