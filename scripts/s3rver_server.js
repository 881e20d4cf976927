#!/usr/bin/env node
// A signature-verifying S3 server for tests: @20minutes/s3rver 5 started through its JS API.
//
//   node scripts/s3rver_server.js --port PORT --dir STORAGE_DIR
//        [--access-key KEY] [--secret-key SECRET] [--verbose]
//
// Keys default to $HOGLAKE_TEST_S3_ACCESS_KEY / $HOGLAKE_TEST_S3_SECRET_KEY, then
// hoglake / hoglake-secret. --port 0 picks a free port; the ready line names the real one:
//
//   s3rver_server: ready http://127.0.0.1:PORT storage=DIR
//
// What this adds to stock s3rver, and why:
// - Only our key pair is registered (s3rver's built-in S3RVER/S3RVER pair is revoked), and
//   s3rver then checks every SigV4 signature against it (SignatureDoesNotMatch -> 403).
// - Unsigned and SigV2 requests get 403: stock s3rver lets anonymous requests through, which
//   would hide a client that forgot to sign. CORS preflight (OPTIONS) is left alone.
// - Conditional writes, which s3rver lacks: `If-None-Match: *` on an existing key -> 412,
//   `If-Match: ETAG` on a different object -> 412 (missing object -> 404). Every object write
//   (PUT, copy, CompleteMultipartUpload, POST upload) runs under a per-key lock, so the
//   existence check and the write are atomic: of two racing conditional PUTs exactly one wins.
//   Preconditions are evaluated after authentication, as S3 does.
// - A PUT body (object or part) must hash to its signed hex `x-amz-content-sha256`, else 400
//   XAmzContentSHA256Mismatch before anything is stored: stock s3rver checks the signature over
//   the declared hash but never hashes the body, so a client hashing the wrong bytes would pass.
//
// Runs until SIGTERM/SIGINT, then closes the listener and exits 0.
'use strict'

const { createHash } = require('node:crypto')
const path = require('node:path')
const { PassThrough } = require('node:stream')
const { createRequire } = require('node:module')
const { parseArgs } = require('node:util')

// The npm tools live in tools/node_modules, not beside this script.
const toolsDir = process.env.HOGLAKE_TOOLS_DIR || path.join(__dirname, '..', 'tools')
const toolsRequire = createRequire(path.join(path.resolve(toolsDir), 'package.json'))

function die(msg) {
  process.stderr.write(`s3rver_server: ${msg}\n`)
  process.exit(1)
}

let S3rver, AWSAccount, S3Error
try {
  S3rver = toolsRequire('@20minutes/s3rver')
  // Same module instances s3rver itself uses (same resolved paths, one require cache).
  AWSAccount = toolsRequire('@20minutes/s3rver/lib/models/account')
  S3Error = toolsRequire('@20minutes/s3rver/lib/models/error')
} catch (err) {
  die(`cannot load @20minutes/s3rver from ${toolsDir} (run: npm ci --prefix tools): ${err.message}`)
}

const { values: opts } = parseArgs({
  options: {
    port: { type: 'string' },
    dir: { type: 'string' },
    address: { type: 'string', default: '127.0.0.1' },
    'access-key': { type: 'string' },
    'secret-key': { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
  strict: true,
})

const port = Number(opts.port)
if (opts.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
  die('--port N required (0..65535; 0 picks a free port)')
}
if (!opts.dir) die('--dir STORAGE_DIR required')
const accessKey = opts['access-key'] || process.env.HOGLAKE_TEST_S3_ACCESS_KEY || 'hoglake'
const secretKey = opts['secret-key'] || process.env.HOGLAKE_TEST_S3_SECRET_KEY || 'hoglake-secret'

// --- key pair -----------------------------------------------------------------------------
// s3rver's authentication middleware looks the access key up in AWSAccount.registry (a static
// map filled by createKeyPair) and verifies the signature with the stored secret.
const account = AWSAccount.DUMMY_ACCOUNT
for (const id of [...account.accessKeys.keys()]) account.revokeAccessKey(id)
account.createKeyPair(accessKey, secretKey)

// --- per-key lock ---------------------------------------------------------------------------
// A chain of promises per key: each writer waits for the previous one to finish.
const lockTails = new Map()

async function withKeyLock(bucket, key, fn) {
  const id = `${bucket}\0${key}`
  const prev = lockTails.get(id) || Promise.resolve()
  let release
  const mine = new Promise((resolve) => {
    release = resolve
  })
  const tail = prev.then(() => mine)
  lockTails.set(id, tail)
  await prev
  try {
    return await fn()
  } finally {
    release()
    if (lockTails.get(id) === tail) lockTails.delete(id)
  }
}

// --- conditional writes ---------------------------------------------------------------------
function stripQuotes(etag) {
  return etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '')
}

// Throws the S3 error for a failed precondition; called with the key's lock held.
async function checkPreconditions(store, cond, bucket, key) {
  if (!cond.ifNoneMatch && !cond.ifMatch) return
  const exists = await store.existsObject(bucket, key)
  if (cond.ifNoneMatch && exists) {
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
      Condition: 'If-None-Match',
    })
  }
  if (cond.ifMatch) {
    if (!exists) {
      throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key })
    }
    const current = stripQuotes((await store.getMetadata(bucket, key)).etag)
    const wanted = cond.ifMatch.split(',').map(stripQuotes)
    if (!wanted.includes('*') && !wanted.includes(current)) {
      throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
        Condition: 'If-Match',
      })
    }
  }
}

// The request body, read whole and checked against the signed payload hash. Only the raw
// request stream is checked: a multipart completion writes the joined parts through putObject
// too, and that content is not this request's body.
async function verifiedContent(content, cond) {
  if (!cond.bodySha256 || content !== cond.rawBody) return content
  const chunks = []
  for await (const chunk of content) chunks.push(chunk)
  const body = Buffer.concat(chunks)
  const computed = createHash('sha256').update(body).digest('hex')
  if (computed !== cond.bodySha256) {
    const err = new S3Error('XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.', {
      ClientComputedContentSHA256: cond.bodySha256,
      S3ComputedContentSHA256: computed,
    })
    err.status = 400 // s3rver's status table does not know this code
    err.expose = true
    throw err
  }
  // A stream, not the Buffer: s3rver's putContent answers before a Buffer is on disk.
  const stream = new PassThrough()
  stream.end(body)
  return stream
}

// A per-request view of the store whose object writes take the key's lock and check the
// request's preconditions first. Controllers call ctx.store.*, and the base
// putObjectMultipart calls this.putObject, so completing a multipart upload goes through the
// same path with the final key.
function guardedStore(base, cond) {
  const store = Object.create(base)
  store.putObject = async function putObject(object) {
    object.content = await verifiedContent(object.content, cond)
    return withKeyLock(object.bucket, object.key, async () => {
      await checkPreconditions(base, cond, object.bucket, object.key)
      return base.putObject.call(this, object)
    })
  }
  store.copyObject = function copyObject(srcBucket, srcKey, destBucket, destKey, meta) {
    return withKeyLock(destBucket, destKey, async () => {
      await checkPreconditions(base, cond, destBucket, destKey)
      return base.copyObject.call(this, srcBucket, srcKey, destBucket, destKey, meta)
    })
  }
  store.putPart = async function putPart(bucket, uploadId, partNumber, content) {
    return base.putPart.call(this, bucket, uploadId, partNumber, await verifiedContent(content, cond))
  }
  return store
}

// --- the middleware -------------------------------------------------------------------------
function hoglakeGuards(app) {
  return async function hoglakeGuards(ctx, next) {
    if (ctx.method !== 'OPTIONS') {
      const auth = ctx.get('authorization')
      const signedV4 = auth.startsWith('AWS4-HMAC-SHA256 ') || 'X-Amz-Algorithm' in ctx.query
      if (!signedV4) {
        throw new S3Error(
          'AccessDenied',
          auth || 'Signature' in ctx.query
            ? 'This test server accepts AWS Signature Version 4 only'
            : 'Anonymous requests are refused: sign the request with SigV4'
        )
      }
    }
    if (ctx.method === 'PUT' || ctx.method === 'POST') {
      const ifNoneMatch = ctx.get('if-none-match')
      const ifMatch = ctx.get('if-match')
      if (ifNoneMatch && ifNoneMatch.trim() !== '*') {
        // S3 itself only supports `If-None-Match: *` on writes.
        throw new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented', {
          Header: 'If-None-Match',
        })
      }
      const payloadHash = ctx.get('x-amz-content-sha256')
      ctx.store = guardedStore(app.store, {
        ifNoneMatch: Boolean(ifNoneMatch),
        ifMatch: ifMatch || null,
        bodySha256: /^[0-9a-fA-F]{64}$/.test(payloadHash) ? payloadHash.toLowerCase() : null,
        rawBody: ctx.req,
      })
    }
    await next()
  }
}

const app = new S3rver({
  address: opts.address,
  port,
  directory: path.resolve(opts.dir),
  silent: !opts.verbose,
  vhostBuckets: false, // path-style only: http://127.0.0.1:PORT/BUCKET/KEY
})

// Koa composes app.middleware when the server starts listening, so inserting here is enough.
// Put the guards after s3rver's host rewriting and before its router (where the signature is
// checked, then the controllers run).
const vhostAt = app.middleware.findIndex((fn) => fn.name === 'vhost')
if (vhostAt < 0 || vhostAt !== app.middleware.length - 2) {
  die('unexpected s3rver middleware layout (not @20minutes/s3rver 5.0.0?): ' +
    app.middleware.map((fn) => fn.name || '?').join(','))
}
app.middleware.splice(vhostAt + 1, 0, hoglakeGuards(app))

let closing = false
async function shutdown(signal) {
  if (closing) return
  closing = true
  // Do not wait forever on keep-alive or stalled clients.
  const force = setTimeout(() => {
    app.httpServer?.closeAllConnections?.()
  }, 2000)
  force.unref()
  try {
    await app.close()
  } catch (err) {
    process.stderr.write(`s3rver_server: close after ${signal}: ${err.message}\n`)
  }
  process.stdout.write(`s3rver_server: stopped (${signal})\n`)
  process.exit(0)
}
// e.g. EADDRINUSE: s3rver's listen() reports it as an unhandled 'error' event.
process.on('uncaughtException', (err) => die(`fatal: ${err.message}`))
process.on('SIGTERM', () => shutdown('SIGTERM'))
process.on('SIGINT', () => shutdown('SIGINT'))

app.run().then(
  (addr) => {
    process.stdout.write(`s3rver_server: ready http://${addr.address}:${addr.port} storage=${path.resolve(opts.dir)}\n`)
  },
  (err) => die(`cannot listen on ${opts.address}:${port}: ${err.message}`)
)
