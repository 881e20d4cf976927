// icebird's Avro reader (tools/node_modules/icebird, the 0.3.1 the Iceberg
// verifier uses) decodes the manifest lists and manifests src/iceberg/avro
// writes: avro_interop_write (HOGLAKE_AVRO_WRITER) writes NAME.avro and
// NAME.json (the records as given) into a scratch directory; every record
// icebird decodes must equal the given one once its value shapes are
// mapped: undefined -> null, BigInt -> number (exact below 2^53), a `date`
// Date -> days, Uint8Array -> base64.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const tools = process.env.HOGLAKE_TOOLS_DIR;
const writer = process.env.HOGLAKE_AVRO_WRITER;
const avroDir = path.join(tools, 'node_modules', 'icebird', 'src', 'avro');
if (!fs.existsSync(avroDir)) {
  console.error(`icebird is not installed under ${tools} (npm ci --prefix tools)`);
  process.exit(1);
}
const { avroMetadata } = await import(pathToFileURL(path.join(avroDir, 'avro.metadata.js')));
const { avroRead } = await import(pathToFileURL(path.join(avroDir, 'avro.read.js')));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-avro-interop-'));
try {
  const run = spawnSync(writer, [dir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`avro_interop_write failed: ${run.stderr}`);
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.avro')).sort();
  if (names.length !== 4) throw new Error(`expected 4 files, got ${names}`);
  const norm = (v) => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'bigint') {
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
        throw new Error(`long ${v} is not exact as a number`);
      return Number(v);
    }
    if (v instanceof Date) return v.getTime() / 86400000;
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    if (Array.isArray(v)) return v.map(norm);
    // Keys sorted: field order is the schema's, not the JSON's.
    if (typeof v === 'object')
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, norm(v[k])]));
    return v;
  };
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(dir, name));
    const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
    const { metadata, syncMarker } = avroMetadata(reader);
    const got = avroRead({ reader, metadata, syncMarker }).map(norm);
    const want = norm(JSON.parse(fs.readFileSync(path.join(dir, name.replace(/\.avro$/, '.json')), 'utf8')));
    const version = name.endsWith('_v3.avro') ? '3' : '2';
    if (metadata['format-version'] !== version) throw new Error(`${name}: format-version ${metadata['format-version']}`);
    if (got.length !== want.length) throw new Error(`${name}: ${got.length} records, want ${want.length}`);
    for (let i = 0; i < want.length; i++) {
      const a = JSON.stringify(got[i]);
      const b = JSON.stringify(want[i]);
      if (a !== b) throw new Error(`${name} record ${i}:\n got  ${a}\n want ${b}`);
    }
    console.log(`ok ${name}: ${got.length} records (codec ${metadata['avro.codec']})`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
