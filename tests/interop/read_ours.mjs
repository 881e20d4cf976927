// Other readers read the Parquet files we write (docs/parquet-interop.md).
//
// For every table of gen_data.mjs, every codec and dictionary on/off:
// `hoglake parquet convert` writes the file, then
//   (i)   DuckDB reads it: column types as mapped, row count, every value
//         equal to the input (floats bit-exact up to NaN payloads, decimals
//         exact, instants at their unit);
//   (ii)  DuckDB parquet_schema(): every element's name, repetition and
//         field_id as expected (the synthetic list/key_value groups have none);
//   (iii) DuckDB parquet_metadata() and `hoglake parquet inspect --json`
//         agree, chunk by chunk, on path, codec, encodings, num_values,
//         null_count, min and max, and both agree with what the input data
//         says under our ordering rules; every page's encoding is listed in
//         its chunk's encodings, and dictionary pages occur exactly when
//         dictionaries are on;
//   (iv)  hyparquet reads it: values equal the input at the precision
//         hyparquet represents; its footer shows the field ids and the same
//         statistics;
//   (v)   our own `cat` prints the input back, text exact.
// Plus edge cases that get a file each (edges below).
//
//   node read_ours.mjs            (INTEROP_SCALE=N for bigger tables,
//                                  INTEROP_VERBOSE=1 to list passing checks)
import fs from 'node:fs';
import path from 'node:path';
import {
  loadDuckDB, loadHyparquet, hoglake, hoglakeOk, workDir, parseJsonExact, parseJsonLines, expectedElements, leafColumns,
  canonModel, diffRows, expectedChunkStats, Report, timer, show, SCALE,
} from './lib.mjs';
import { tables, writeTable } from './gen_data.mjs';
import {
  duckCanon, duckStatCanon, hyCanon, hyStatCanon, hyParsers, hyMetaParsers, hyView, catRows, inspectStatCanon,
} from './adapters.mjs';

const CODECS = ['zstd', 'snappy', 'gzip', 'uncompressed', 'lz4_raw'];
const elapsed = timer();
const report = new Report('read_ours');
const dir = workDir('read_ours');
const { DuckDBInstance } = await loadDuckDB();
const hp = await loadHyparquet();
const duck = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
const timing = { convert: 0, duckdb: 0, hyparquet: 0, inspect: 0, cat: 0 };
const codecsSeen = new Set(), encodingsSeen = new Set();

// ---- expected DuckDB types ----

// What DuckDB should type each column as when it reads our file. `time` is
// TIME: the Iceberg mapping is TIME(MICROS, isAdjustedToUTC=false).
function duckTypeOf(col) {
  switch (col.type) {
    case 'boolean': return 'BOOLEAN';
    case 'int8': return 'TINYINT';
    case 'int16': return 'SMALLINT';
    case 'int': return 'INTEGER';
    case 'long': case 'uint32': return 'BIGINT';
    case 'uint8': return 'UTINYINT';
    case 'uint16': return 'USMALLINT';
    case 'uint64': return 'UBIGINT';
    case 'float': return 'FLOAT';
    case 'double': return 'DOUBLE';
    case 'decimal': return `DECIMAL(${col.type_params.precision},${col.type_params.scale})`;
    case 'date': return 'DATE';
    case 'time': return 'TIME';
    case 'timestamp_s': case 'timestamp_ms': case 'timestamp': return 'TIMESTAMP';
    case 'timestamp_ns': return 'TIMESTAMP_NS';
    case 'timestamptz': return 'TIMESTAMP WITH TIME ZONE';
    case 'string': return 'VARCHAR';
    case 'json': return 'JSON';
    case 'uuid': return 'UUID';
    case 'binary': return 'BLOB';
  }
  return null;
}

function diffDuckType(col, t, where, out) {
  const name = t.constructor.name;
  if (col.type === 'struct') {
    if (name !== 'DuckDBStructType') return out.push(`${where}: expected STRUCT, got ${t}`);
    const names = col.children.map((k) => k.name);
    if (t.entryNames.join(',') !== names.join(',')) return out.push(`${where}: struct fields ${t.entryNames} (want ${names})`);
    col.children.forEach((k, i) => diffDuckType(k, t.entryTypes[i], `${where}.${k.name}`, out));
  } else if (col.type === 'list') {
    if (name !== 'DuckDBListType') return out.push(`${where}: expected a LIST, got ${t}`);
    diffDuckType(col.children[0], t.valueType, `${where}[]`, out);
  } else if (col.type === 'map') {
    if (name !== 'DuckDBMapType') return out.push(`${where}: expected a MAP, got ${t}`);
    diffDuckType(col.children[0], t.keyType, `${where}.key`, out);
    diffDuckType(col.children[1], t.valueType, `${where}.value`, out);
  } else {
    const want = duckTypeOf(col);
    const got = t.alias || t.toString();
    if (got !== want) out.push(`${where} (${col.type}): DuckDB types it ${got}, expected ${want}`);
  }
}

// ---- one file ----

async function checkFile(t, file, variant, ctx) {
  const { codec, dict } = variant;
  const label = `${t.name} ${codec} ${dict ? 'dict' : 'plain'}`;
  const leaves = leafColumns(t.columns);

  // (i) DuckDB values and types
  let t0 = performance.now();
  const res = await duck.runAndReadAll(`SELECT * FROM read_parquet(${sqlStr(file)})`);
  const names = res.columnNames();
  const types = res.columnTypes();
  const drows = res.getRows();
  timing.duckdb += performance.now() - t0;
  {
    const probs = [];
    if (names.join(',') !== t.columns.map((c) => c.name).join(',')) probs.push(`columns ${names} (want ${t.columns.map((c) => c.name)})`);
    else {
      const got = drows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c.name, duckCanon(c, r[i])])));
      diffRows(t.columns, ctx.exact, got, 'duckdb', probs);
    }
    report.check(`${label}: DuckDB reads every value`, probs);
    if (variant.first) {
      const tp = [];
      t.columns.forEach((c, i) => diffDuckType(c, types[i], c.name, tp));
      report.check(`${t.name}: DuckDB types every column as mapped`, tp);
    }
  }

  // (ii) field ids: DuckDB's parquet_schema and our inspect
  t0 = performance.now();
  const insp = parseJsonExact(hoglakeOk(['parquet', 'inspect', file, '--json']).stdout);
  timing.inspect += performance.now() - t0;
  t0 = performance.now();
  const sch = (await duck.runAndReadAll(`SELECT name, field_id, repetition_type FROM parquet_schema(${sqlStr(file)})`)).getRowObjectsJS();
  timing.duckdb += performance.now() - t0;
  {
    const probs = [];
    const want = ctx.elements;
    const got = sch.slice(1);
    if (got.length !== want.length) probs.push(`${got.length} schema elements, expected ${want.length}`);
    for (let i = 0; i < Math.min(got.length, want.length); i++) {
      const g = got[i], w = want[i];
      const fid = g.field_id === null || g.field_id === undefined ? null : Number(g.field_id);
      if (g.name !== w.name || fid !== w.field_id || g.repetition_type !== w.repetition)
        probs.push(`element ${w.path.join('.')}: DuckDB shows ${g.name} field_id=${fid} ${g.repetition_type}, expected ${w.name} field_id=${w.field_id} ${w.repetition}`);
    }
    const flat = [];
    const walk = (n) => { for (const k of n.children || []) { flat.push(k); walk(k); } };
    walk(insp.schema);
    if (flat.length !== want.length) probs.push(`inspect: ${flat.length} schema elements, expected ${want.length}`);
    else want.forEach((w, i) => {
      const fid = flat[i].field_id === null ? null : Number(flat[i].field_id.text);
      if (flat[i].name !== w.name || fid !== w.field_id || flat[i].repetition !== w.repetition || flat[i].path !== w.path.join('.'))
        probs.push(`inspect: element ${w.path.join('.')} shows ${flat[i].path} field_id=${fid} ${flat[i].repetition}`);
    });
    report.check(`${label}: field ids in DuckDB parquet_schema and inspect`, probs);
  }

  // (iii) statistics: DuckDB, inspect, and the data
  t0 = performance.now();
  const md = (await duck.runAndReadAll(
    `SELECT row_group_id, row_group_num_rows, column_id, path_in_schema, num_values, stats_null_count, stats_min_value, stats_max_value,
            stats_min, stats_max, compression, encodings FROM parquet_metadata(${sqlStr(file)}) ORDER BY row_group_id, column_id`)).getRowObjectsJS();
  timing.duckdb += performance.now() - t0;
  const buf = fs.readFileSync(file);
  t0 = performance.now();
  const hmeta = hp.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), { parsers: hyMetaParsers });
  timing.hyparquet += performance.now() - t0;
  {
    const probs = [];
    const nrg = insp.row_groups.length;
    if (Number(insp.file.num_rows.text) !== t.rows.length) probs.push(`inspect num_rows ${insp.file.num_rows}`);
    if (md.length !== nrg * leaves.length) probs.push(`DuckDB lists ${md.length} chunks, inspect ${nrg} row groups x ${leaves.length} leaves`);
    if (hmeta.row_groups.length !== nrg) probs.push(`hyparquet sees ${hmeta.row_groups.length} row groups, inspect ${nrg}`);
    let first = 0;
    for (let g = 0; g < nrg; g++) {
      const rg = insp.row_groups[g];
      const nrows = Number(rg.num_rows.text);
      const slice = t.rows.slice(first, first + nrows);
      first += nrows;
      const hrg = hmeta.row_groups[g];
      if (hrg && Number(hrg.num_rows) !== nrows) probs.push(`rg ${g}: hyparquet num_rows ${hrg.num_rows}, inspect ${nrows}`);
      leaves.forEach((leaf, ci) => {
        const where = `rg ${g} ${leaf.path.join('.')}`;
        const ic = rg.columns[ci];
        const dc = md[g * leaves.length + ci];
        const hc = hrg?.columns[ci]?.meta_data;
        const key = `${first - nrows}:${nrows}:${ci}`;
        if (!ctx.stats.has(key)) ctx.stats.set(key, expectedChunkStats(leaf, slice));
        const exp = ctx.stats.get(key);
        const eMin = canonModel(leaf.col, exp.min), eMax = canonModel(leaf.col, exp.max);
        if (!ic || !dc) { probs.push(`${where}: chunk missing (inspect ${!!ic}, DuckDB ${!!dc})`); return; }
        // paths, counts, codec, encodings
        if (ic.path !== leaf.path.join('.')) probs.push(`${where}: inspect path ${ic.path}`);
        if (dc.path_in_schema !== leaf.path.join(', ')) probs.push(`${where}: DuckDB path ${dc.path_in_schema}`);
        if (Number(dc.row_group_num_rows) !== nrows) probs.push(`${where}: DuckDB row_group_num_rows ${dc.row_group_num_rows}, inspect ${nrows}`);
        const nv = [Number(ic.num_values.text), Number(dc.num_values), hc && Number(hc.num_values)];
        if (nv.some((x) => x !== exp.numValues)) probs.push(`${where}: num_values inspect/DuckDB/hyparquet ${nv}, the data has ${exp.numValues} entries`);
        const nc = [ic.statistics && Number(ic.statistics.null_count.text), dc.stats_null_count === null ? null : Number(dc.stats_null_count),
          hc?.statistics && Number(hc.statistics.null_count)];
        if (nc.some((x) => x !== exp.nulls)) probs.push(`${where}: null_count inspect/DuckDB/hyparquet ${nc}, the data has ${exp.nulls}`);
        if (ic.codec !== codec.toUpperCase() || dc.compression !== codec.toUpperCase() || (hc && hc.codec !== codec.toUpperCase()))
          probs.push(`${where}: codec inspect ${ic.codec}, DuckDB ${dc.compression}, hyparquet ${hc?.codec}; converted with ${codec}`);
        codecsSeen.add(dc.compression);
        const ienc = ic.encodings.join(', ');
        if (ienc !== dc.encodings) probs.push(`${where}: encodings inspect [${ienc}], DuckDB [${dc.encodings}]`);
        if (hc && hc.encodings.join(', ') !== ienc) probs.push(`${where}: encodings hyparquet [${hc.encodings}], inspect [${ienc}]`);
        for (const e of ic.encodings) encodingsSeen.add(e);
        // A chunk without values (all null) has no dictionary to encode with.
        const dictCol = leaf.col.type !== 'boolean' && exp.numValues > exp.nulls;
        if (dict && dictCol && !ic.encodings.includes('RLE_DICTIONARY')) probs.push(`${where}: dictionaries on, encodings [${ienc}]`);
        if ((!dict || !dictCol) && ic.encodings.some((e) => e.includes('DICTIONARY'))) probs.push(`${where}: no dictionary expected, encodings [${ienc}]`);
        // bounds
        const bounds = [
          ['inspect', inspectStatCanon(leaf.col, ic.statistics?.min), inspectStatCanon(leaf.col, ic.statistics?.max)],
          ['DuckDB', duckStatCanon(leaf.col, dc.stats_min_value), duckStatCanon(leaf.col, dc.stats_max_value)],
        ];
        if (hc) bounds.push(['hyparquet', hyStatCanon(leaf.col, hc.statistics?.min_value), hyStatCanon(leaf.col, hc.statistics?.max_value)]);
        for (const [who, mn, mx] of bounds) {
          const hv = who === 'hyparquet' && leaf.col.type === 'decimal';
          const wMin = hv ? canonModel(leaf.col, exp.min, hyView) : eMin, wMax = hv ? canonModel(leaf.col, exp.max, hyView) : eMax;
          // DuckDB's parquet_metadata shows an infinite bound as NULL
          const duckInf = (got, want) => who === 'DuckDB' && got === null && (want === 'Infinity' || want === '-Infinity');
          if ((mn !== wMin && !duckInf(mn, wMin)) || (mx !== wMax && !duckInf(mx, wMax))) probs.push(`${where}: ${who} min/max ${show(mn)} / ${show(mx)}, the data says ${show(wMin)} / ${show(wMax)}`);
        }
        if (ic.statistics?.legacy_min_max || dc.stats_min !== null || dc.stats_max !== null)
          probs.push(`${where}: deprecated min/max written (${dc.stats_min}, ${dc.stats_max})`);
      });
    }
    if (first !== t.rows.length) probs.push(`row groups hold ${first} rows, input ${t.rows.length}`);
    // pages
    const firstRows = [];
    for (let g = 0, f = 0; g < nrg; g++) { firstRows.push(f); f += Number(insp.row_groups[g].num_rows.text); }
    const exp = (g, k) => ctx.stats.get(`${firstRows[g]}:${Number(insp.row_groups[g].num_rows.text)}:${k % leaves.length}`);
    try {
      const walked = hp.walkPages(buf, hmeta);
      walked.forEach((c, k) => {
        const g = Math.floor(k / leaves.length);
        const ic = insp.row_groups[g].columns[k % leaves.length];
        const dictPages = c.pages.filter((p) => p.type === 'DICTIONARY_PAGE').length;
        const dataPages = c.pages.filter((p) => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2');
        if (dictPages > 1) probs.push(`rg ${g} ${c.path}: ${dictPages} dictionary pages`);
        if (dictPages && !ic.encodings.includes('RLE_DICTIONARY')) probs.push(`rg ${g} ${c.path}: a dictionary page, encodings [${ic.encodings}]`);
        if (dictPages && c.pages[0].type !== 'DICTIONARY_PAGE') probs.push(`rg ${g} ${c.path}: the dictionary page is not first`);
        for (const p of dataPages) if (!ic.encodings.includes(p.encoding)) probs.push(`rg ${g} ${c.path}: a ${p.type} in ${p.encoding}, not among [${ic.encodings}]`);
        const nv = dataPages.reduce((s, p) => s + p.num_values, 0);
        if (nv !== Number(ic.num_values.text)) probs.push(`rg ${g} ${c.path}: pages hold ${nv} values, chunk ${ic.num_values}`);
        ctx.pages.max = Math.max(ctx.pages.max, dataPages.length);
        // the page index, read by hyparquet, against the pages themselves
        const hc = hmeta.row_groups[g].columns[k % leaves.length];
        const leaf = leaves[k % leaves.length];
        const rgRows = Number(hmeta.row_groups[g].num_rows);
        if (hc.offset_index_offset === undefined) probs.push(`rg ${g} ${c.path}: no offset index`);
        else {
          ctx.pages.offsetIndexes++;
          const oi = hp.readOffsetIndex({ view: new DataView(buf.buffer, buf.byteOffset + Number(hc.offset_index_offset), hc.offset_index_length), offset: 0 });
          const locs = oi.page_locations;
          if (locs.length !== dataPages.length) probs.push(`rg ${g} ${c.path}: offset index lists ${locs.length} pages, the chunk has ${dataPages.length}`);
          else locs.forEach((l, i) => {
            if (Number(l.offset) !== dataPages[i].offset || l.compressed_page_size !== dataPages[i].size)
              probs.push(`rg ${g} ${c.path} page ${i}: offset index says ${l.offset}+${l.compressed_page_size}, the page is ${dataPages[i].offset}+${dataPages[i].size}`);
            const fr = Number(l.first_row_index);
            if ((i === 0 && fr !== 0) || (i > 0 && fr <= Number(locs[i - 1].first_row_index)) || fr >= rgRows)
              probs.push(`rg ${g} ${c.path} page ${i}: first_row_index ${fr}`);
          });
          if (leaf.steps.length === 0 && locs.length === dataPages.length) {
            // flat columns: one level entry per row, so page rows are page values
            locs.forEach((l, i) => {
              const rowsIn = (i + 1 < locs.length ? Number(locs[i + 1].first_row_index) : rgRows) - Number(l.first_row_index);
              if (rowsIn !== dataPages[i].num_values) probs.push(`rg ${g} ${c.path} page ${i}: ${rowsIn} rows by the offset index, ${dataPages[i].num_values} values in the page`);
            });
          }
        }
        if (hc.column_index_offset !== undefined) {
          const schemaEl = hmeta.schema.find((e, i) => i > 0 && ctx.elements[i - 1].path.join('.') === c.path);
          const ci = hp.readColumnIndex({ view: new DataView(buf.buffer, buf.byteOffset + Number(hc.column_index_offset), hc.column_index_length), offset: 0 },
            schemaEl, hyMetaParsers);
          if (ci.null_pages.length !== dataPages.length) probs.push(`rg ${g} ${c.path}: column index lists ${ci.null_pages.length} pages, the chunk has ${dataPages.length}`);
          const nulls = (ci.null_counts || []).reduce((a, b) => a + Number(b), 0);
          if (ci.null_counts && nulls !== Number(ic.statistics.null_count.text)) probs.push(`rg ${g} ${c.path}: column index null counts add up to ${nulls}, the chunk says ${ic.statistics.null_count}`);
          const mn = inspectStatCanon(leaf.col, ic.statistics.min), mx = inspectStatCanon(leaf.col, ic.statistics.max);
          const pmins = ci.min_values.filter((_, i) => !ci.null_pages[i]).map((v) => hyStatCanon(leaf.col, v));
          const pmaxs = ci.max_values.filter((_, i) => !ci.null_pages[i]).map((v) => hyStatCanon(leaf.col, v));
          const chunkMin = leaf.col.type === 'decimal' ? canonModel(leaf.col, exp(g, k).min, hyView) : mn;
          const chunkMax = leaf.col.type === 'decimal' ? canonModel(leaf.col, exp(g, k).max, hyView) : mx;
          if (chunkMin !== null && !pmins.includes(chunkMin)) probs.push(`rg ${g} ${c.path}: no page's column index min is the chunk min ${show(chunkMin)} (${show(pmins.slice(0, 5))})`);
          if (chunkMax !== null && !pmaxs.includes(chunkMax)) probs.push(`rg ${g} ${c.path}: no page's column index max is the chunk max ${show(chunkMax)} (${show(pmaxs.slice(0, 5))})`);
          ctx.pages.columnIndexes++;
        } else if (ic.column_index_offset !== null) probs.push(`rg ${g} ${c.path}: inspect shows a column index hyparquet does not`);
        for (const p of dataPages) ctx.pages.kinds.add(`${p.type}/${p.encoding}`);
        if (dataPages.some((p) => p.encoding === 'RLE_DICTIONARY') && dataPages.some((p) => p.encoding === 'PLAIN')) ctx.pages.fallback++;
      });
    } catch (e) {
      probs.push(`page walk: ${e.message}`);
    }
    report.check(`${label}: statistics and encodings agree (DuckDB, inspect, hyparquet, the data)`, probs);
    ctx.rowGroups = nrg;
  }

  // (iv) hyparquet values and field ids
  {
    const probs = [];
    const sel = hmeta.schema.slice(1);
    const want = ctx.elements;
    if (sel.length !== want.length) probs.push(`hyparquet: ${sel.length} schema elements, expected ${want.length}`);
    for (let i = 0; i < Math.min(sel.length, want.length); i++)
      if (sel[i].name !== want[i].name || (sel[i].field_id ?? null) !== want[i].field_id)
        probs.push(`hyparquet: element ${want[i].path.join('.')} shows ${sel[i].name} field_id=${sel[i].field_id}, expected field_id=${want[i].field_id}`);
    t0 = performance.now();
    let hrows;
    try {
      hrows = await hp.parquetReadObjects({
        file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors: hp.compressors, utf8: false, parsers: hyParsers,
      });
    } catch (e) {
      probs.push(`hyparquet cannot read the file: ${e.message}`);
    }
    timing.hyparquet += performance.now() - t0;
    if (hrows) {
      const got = hrows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, hyCanon(c, r[c.name])])));
      diffRows(t.columns, ctx.hy, got, 'hyparquet', probs);
    }
    report.check(`${label}: hyparquet reads every value and field id`, probs);
  }

  // (v) our own cat (the unit tests read our files back through every
  // codec; here the text: every variant of the small tables, one of the big)
  if (t.rows.length <= 1000 || variant.first) {
    t0 = performance.now();
    const r = hoglake(['parquet', 'cat', file]);
    timing.cat += performance.now() - t0;
    const probs = [];
    if (r.status !== 0) probs.push(`cat exited ${r.status}: ${r.stderr}`);
    else {
      const got = catRows(t.columns, parseJsonLines(r.stdout));
      diffRows(t.columns, ctx.exact, got, 'cat', probs);
      if (got.some((o) => o.__order)) probs.push(`cat: column order ${got.find((o) => o.__order).__order}`);
    }
    report.check(`${label}: hoglake parquet cat prints the input back`, probs);
  }
}

// ---- edge cases: one small file each ----

async function edges() {
  const cases = [
    // The first partial second of int64 nanoseconds: valid instants.
    { name: 'ns_min', schema: 't:timestamp_ns', rows: ['{"t":"1677-09-21T00:12:43.145224192"}', '{"t":"1677-09-21T00:12:43.999999999"}'],
      duck: ['-9223372036854775808', '-9223372036000000001'] },
    { name: 'ns_max', schema: 't:timestamp_ns', rows: ['{"t":"2262-04-11T23:47:16.854775806"}'], duck: ['9223372036854775806'] },
    // Microseconds before 1970 with a fraction (floor division).
    { name: 'us_neg', schema: 't:timestamp', rows: ['{"t":"1969-12-31T23:59:59.999999"}', '{"t":"0001-01-01T00:00:00.000001"}'], duck: ['-1', '-62135596799999999'] },
  ];
  for (const c of cases) {
    const jl = path.join(dir, `edge_${c.name}.jsonl`), out = path.join(dir, `edge_${c.name}.parquet`);
    fs.writeFileSync(jl, c.rows.join('\n') + '\n');
    const probs = [];
    const r = hoglake(['parquet', 'convert', jl, out, '--schema', c.schema, '--force']);
    if (r.status !== 0) probs.push(`convert refused it: ${String(r.stderr).trim()} (input: ${c.rows.join(' ')})`);
    else {
      const back = hoglake(['parquet', 'cat', out]).stdout.trim().split('\n');
      if (back.join('\n') !== c.rows.join('\n')) probs.push(`cat printed ${back}, input ${c.rows}`);
      // raw values: DuckDB cannot print nanosecond instants before 1677-09-22
      const dv = (await duck.runAndReadAll(`SELECT t FROM read_parquet(${sqlStr(out)})`)).getRows().map(([v]) => String(v.nanos ?? v.micros));
      if (dv.join(',') !== c.duck.join(',')) probs.push(`DuckDB reads ${dv}, expected ${c.duck}`);
    }
    report.check(`edge ${c.name}: convert, cat and DuckDB agree`, probs);
  }
}

// ---- main ----

for (const t of tables(SCALE)) {
  const f = writeTable(dir, t);
  const ctx = {
    exact: t.rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, canonModel(c, r[c.name])]))),
    hy: t.rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, canonModel(c, r[c.name], hyView)]))),
    elements: expectedElements(t.columns),
    pages: { max: 0, kinds: new Set(), offsetIndexes: 0, columnIndexes: 0, fallback: 0 },
    stats: new Map(), // expected chunk statistics by first row, rows, leaf
  };
  let first = true;
  for (const codec of t.light ? ['zstd'] : CODECS) {
    for (const dict of t.light ? [true] : [true, false]) {
      const out = path.join(dir, `${t.name}.${codec}.${dict ? 'dict' : 'plain'}.parquet`);
      const args = ['parquet', 'convert', f.jsonl, out, '--schema', '@' + f.schema, '--compression', codec, ...t.convert, '--force'];
      if (!dict) args.push('--no-dictionary');
      const r = hoglake(args);
      timing.convert += r.ms;
      if (r.status !== 0) {
        report.check(`${t.name} ${codec} ${dict ? 'dict' : 'plain'}: convert`, [`hoglake ${args.join(' ')}: exit ${r.status}: ${String(r.stderr).trim()}`]);
        continue;
      }
      try {
        await checkFile(t, out, { codec, dict, first }, ctx);
      } catch (e) {
        report.check(`${t.name} ${codec} ${dict ? 'dict' : 'plain'}: checks ran`, [e.stack]);
      }
      first = false;
    }
  }
  if (t.name === 'fallback') report.check('fallback: a chunk turns from RLE_DICTIONARY to PLAIN pages', ctx.pages.fallback ? [] : ['no chunk has both dictionary and PLAIN data pages']);
  console.log(`${t.name}: ${t.rows.length} rows, ${ctx.rowGroups} row group(s), up to ${ctx.pages.max} data pages per chunk, pages ${[...ctx.pages.kinds].sort().join(' ')}, ` +
    `${ctx.pages.offsetIndexes} offset and ${ctx.pages.columnIndexes} column indexes checked (${elapsed()})`);
}
await edges();
console.log(`codecs read: ${[...codecsSeen].sort().join(' ')}; chunk encodings: ${[...encodingsSeen].sort().join(' ')}`);
console.log(`time: ${elapsed()} total; convert ${(timing.convert / 1000).toFixed(1)}s, inspect ${(timing.inspect / 1000).toFixed(1)}s, ` +
  `cat ${(timing.cat / 1000).toFixed(1)}s, DuckDB ${(timing.duckdb / 1000).toFixed(1)}s, hyparquet ${(timing.hyparquet / 1000).toFixed(1)}s`);
report.finish(dir);
