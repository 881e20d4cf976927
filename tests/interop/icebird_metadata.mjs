// icebird 0.3.1 (an independent Iceberg reader) reads the table metadata our
// src/iceberg/metadata writes: ice_meta_emit (ICE_META_EMIT) writes v2 and v3
// tables, empty and after two appends (metadata only), with
// version-hint.text; icebird resolves the hint through a file:// fetch shim
// and parses the JSON, and every fact it reads must match what the writer
// says it wrote. Exact integers are checked from the raw text as well, since
// JSON.parse would round an id at or above 2^53.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOOLS, parseJsonExact } from './lib.mjs';
import { installFileFetch } from './file_fetch.mjs';

const emitter = process.env.ICE_META_EMIT;
if (!emitter) throw new Error('ICE_META_EMIT (the ice_meta_emit binary) is not set');
const icebirdDir = path.join(TOOLS, 'node_modules', 'icebird');
if (!fs.existsSync(icebirdDir))
  throw new Error(`${icebirdDir} is missing: run 'npm ci --prefix ${TOOLS}'`);
const requested = installFileFetch();
const { icebergMetadata, icebergListVersions, icebergManifests } =
  await import(path.join(icebirdDir, 'src/index.js'));

// Numbers from parseJsonExact are JNum (exact text).
const big = (v) => BigInt(String(v));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-icebird-meta-'));
let failures = 0;
const check = (ok, what) => {
  if (!ok) {
    failures++;
    console.error(`FAIL ${what}`);
  }
};
try {
  const run = spawnSync(emitter, [dir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ice_meta_emit failed: ${run.stderr}`);
  const tables = run.stdout.trim().split('\n').map((l) => parseJsonExact(l));
  check(tables.length === 4, `4 tables emitted, got ${tables.length}`);
  for (const want of tables) {
    const name = String(want.table);
    const md = await icebergMetadata({ tableUrl: String(want.location) });
    const versions = await icebergListVersions({ tableUrl: String(want.location) });
    const nsnap = want.snapshots.length;
    check(versions.length === nsnap + 1, `${name}: ${versions.length} versions via the hint`);
    check(md['format-version'] === Number(want.format), `${name}: format-version`);
    check(md.location === String(want.location), `${name}: location`);
    check(big(md['last-sequence-number']) === big(want.sequence), `${name}: last-sequence-number`);
    // The schema icebird reads rows by: current schema, field names and ids.
    const schema = md.schemas.find((s) => s['schema-id'] === md['current-schema-id']);
    check(schema && schema.fields.map((f) => `${f.id}:${f.name}`).join(',') ===
          '1:session_id,2:conversation_id,3:message_created_at,4:n,5:tags', `${name}: schema`);
    const n = schema && schema.fields.find((f) => f.name === 'n');
    check(n && n.type === 'decimal(20, 0)', `${name}: uint64 maps to decimal(20, 0)`);
    const spec = md['partition-specs'].find((s) => s['spec-id'] === md['default-spec-id']);
    check(spec && spec.fields.length === 1 && spec.fields[0].transform === 'day' &&
          spec.fields[0]['source-id'] === 3 && spec.fields[0].name === 'message_created_at_day',
          `${name}: day partition spec`);
    const order = md['sort-orders'].find((o) => o['order-id'] === md['default-sort-order-id']);
    check(order && order.fields.map((f) => f['source-id']).join(',') === '1,2',
          `${name}: sort order`);
    if (Number(want.format) === 3)
      check(big(md['next-row-id']) === big(want.next_row_id), `${name}: next-row-id`);
    else
      check(!('next-row-id' in md), `${name}: no next-row-id on v2`);
    if (nsnap === 0) {
      // No snapshot: icebird must say so rather than read garbage.
      let refused = false;
      try { await icebergManifests(md); } catch { refused = true; }
      check(refused, `${name}: an empty table has no manifests`);
      continue;
    }
    // Snapshot ids: exact in the text, and below 2^53 so JSON.parse is exact too.
    const raw = parseJsonExact(fs.readFileSync(
      path.join(dir, name, 'metadata', `v${nsnap + 1}.metadata.json`), 'utf8'));
    const last = big(want.snapshots[nsnap - 1]);
    check(big(raw['current-snapshot-id']) === last, `${name}: current-snapshot-id (exact)`);
    check(big(md['current-snapshot-id']) === last, `${name}: current-snapshot-id (JSON.parse)`);
    check(big(md.refs.main['snapshot-id']) === last, `${name}: refs.main`);
    const snaps = md.snapshots;
    check(snaps.length === nsnap, `${name}: snapshots`);
    check(snaps[1]['parent-snapshot-id'] === snaps[0]['snapshot-id'], `${name}: parent id`);
    check(snaps.map((s) => s['sequence-number']).join(',') === '1,2', `${name}: sequence numbers`);
    check(snaps[1].summary['total-records'] === '201' && snaps[1].summary.operation === 'append',
          `${name}: summary`);
    check(snaps[1].summary['hoglake.source-snapshot-to'] === '20', `${name}: extra summary key`);
    if (Number(want.format) === 3)
      check(snaps[1]['first-row-id'] === 100 && snaps[1]['added-rows'] === 101,
            `${name}: row lineage`);
    check(md['metadata-log'].length === nsnap &&
          md['metadata-log'].every((e, i) => e['metadata-file'] ===
                                     `${want.location}/metadata/v${i + 1}.metadata.json` &&
                                     fs.existsSync(new URL(e['metadata-file']))),
          `${name}: metadata-log points at the earlier versions`);
    // The manifest list is named but not written: icebird asks for exactly
    // that file (and then fails on the missing body).
    requested.length = 0;
    let failed = false;
    try { await icebergManifests(md); } catch { failed = true; }
    check(failed && requested.length === 1 && requested[0] === snaps[1]['manifest-list'] &&
          requested[0] === `${want.location}/metadata/snap-${last}-1-x.avro`,
          `${name}: icebird follows the current snapshot's manifest list (${requested})`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('icebird 0.3.1 read every metadata file as written');
