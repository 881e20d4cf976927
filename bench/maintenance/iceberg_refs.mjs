// The files under a file:// Iceberg table's location against what its
// current metadata references, read with icebird's Avro reader (not ours):
// every snapshot's manifest list, its manifests and the data files of their
// live entries (ADDED or EXISTING; a DELETED entry keeps no file alive).
//
//   node bench/maintenance/iceberg_refs.mjs TABLE_DIR
//
// Prints "unreferenced N missing M files F bytes B snapshots S": the
// Parquet and Avro files on disk no snapshot references, the referenced ones
// not on disk, and the files and bytes under the location. Needs
// HOGLAKE_TOOLS_DIR (tools/, with node_modules/icebird).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = process.argv[2];
const tools = process.env.HOGLAKE_TOOLS_DIR;
if (!dir || !tools) {
  console.error('usage: HOGLAKE_TOOLS_DIR=tools node iceberg_refs.mjs TABLE_DIR');
  process.exit(2);
}
const avroDir = path.join(tools, 'node_modules', 'icebird', 'src', 'avro');
const { avroMetadata } = await import(pathToFileURL(path.join(avroDir, 'avro.metadata.js')));
const { avroRead } = await import(pathToFileURL(path.join(avroDir, 'avro.read.js')));

const local = (uri) => (uri.startsWith('file://') ? fileURLToPath(uri) : uri);
function readAvro(file) {
  const bytes = fs.readFileSync(file);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const { metadata, syncMarker } = avroMetadata(reader);
  return avroRead({ reader, metadata, syncMarker });
}

const metaDir = path.join(dir, 'metadata');
const versions = fs.readdirSync(metaDir)
  .map((f) => /^v(\d+)\.metadata\.json$/.exec(f))
  .filter(Boolean)
  .sort((a, b) => Number(a[1]) - Number(b[1]));
if (!versions.length) throw new Error(`no vN.metadata.json under ${metaDir}`);
const meta = JSON.parse(fs.readFileSync(path.join(metaDir, versions.at(-1)[0]), 'utf8'));

const referenced = new Set();
for (const snap of meta.snapshots ?? []) {
  const list = local(snap['manifest-list']);
  referenced.add(list);
  if (!fs.existsSync(list)) continue;
  for (const m of readAvro(list)) {
    const manifest = local(m.manifest_path);
    referenced.add(manifest);
    if (!fs.existsSync(manifest)) continue;
    for (const e of readAvro(manifest)) {
      if (Number(e.status) !== 2) referenced.add(local(e.data_file.file_path));
    }
  }
}

const onDisk = new Map();
(function walk(d) {
  for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, ent.name);
    if (ent.isDirectory()) walk(p);
    else if (ent.isFile() && /\.(parquet|avro)$/.test(ent.name)) onDisk.set(p, fs.statSync(p).size);
  }
})(dir);

let unreferenced = 0;
for (const p of onDisk.keys()) if (!referenced.has(p)) unreferenced++;
let missing = 0;
for (const p of referenced) if (!onDisk.has(p)) missing++;
let bytes = 0;
for (const s of onDisk.values()) bytes += s;
console.log(`unreferenced ${unreferenced} missing ${missing} files ${onDisk.size} bytes ${bytes} ` +
  `snapshots ${(meta.snapshots ?? []).length}`);
