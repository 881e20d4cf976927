// A globalThis.fetch that serves file:// URLs from the local disk, so that
// icebird 0.3.1 (which does all its I/O through fetch, and whose Node fetch
// refuses file:) can read an Iceberg table in place: HEAD answers with the
// length, a Range GET with exactly those bytes (206), a plain GET with the
// whole file, a missing file with 404. Other URLs go to the real fetch.
// Returns the list of file:// URLs requested, in order (tests can assert
// what a reader opened).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export function installFileFetch() {
  const realFetch = globalThis.fetch;
  const requested = [];
  globalThis.fetch = async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input.url;
    if (!url.startsWith('file://')) return realFetch(input, init);
    requested.push(url);
    let data;
    try {
      data = fs.readFileSync(fileURLToPath(url));
    } catch (e) {
      if (e.code === 'ENOENT') return new Response(null, { status: 404, statusText: 'Not Found' });
      throw e;
    }
    const headers = new Headers(init.headers || {});
    if ((init.method || 'GET').toUpperCase() === 'HEAD')
      return new Response(null, { status: 200, headers: { 'Content-Length': String(data.length) } });
    const range = headers.get('Range');
    if (range) {
      const m = /^bytes=(\d+)-(\d*)$/.exec(range);
      if (!m) return new Response(null, { status: 416 });
      const start = Number(m[1]);
      const end = m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
      const part = data.subarray(start, end + 1);
      return new Response(part, {
        status: 206,
        headers: { 'Content-Length': String(part.length),
                   'Content-Range': `bytes ${start}-${end}/${data.length}` },
      });
    }
    return new Response(data, { status: 200, headers: { 'Content-Length': String(data.length) } });
  };
  return requested;
}
