// SPDX-License-Identifier: MIT OR Apache-2.0
// Checksum manifests (md5sum / sha1sum / sha256sum / sha512sum / b2sum lists, GNU and BSD
// lines, coreutils' -c rules): parse, directory root, and an asynchronous check of a
// directory (files read on worker threads, many in flight), with the validation cache.
'use strict';
const native = require('./native');

const MANIFEST_HASHES = Object.freeze({ auto: 0, md5: 1, sha1: 2, sha256: 3, sha512: 4, blake2b: 5 });

function manifestAlg(h) {
  if (typeof h === 'number') return h;
  const a = MANIFEST_HASHES[String(h).toLowerCase()];
  if (a === undefined) throw new TypeError(`unknown checksum digest '${h}' (auto, md5, sha1, sha256, sha512, blake2b)`);
  return a;
}
function textOf(t) {
  if (typeof t === 'string') return Buffer.from(t, 'utf8');
  if (t instanceof Uint8Array) return t;
  throw new TypeError('merkle: a manifest is a string or a Uint8Array');
}
function lengthOf(n) {
  if (n === undefined) return 0;
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new RangeError('merkle: digestLength is 0..64 bytes');
  return n;
}
const NAMES = ['auto', 'md5', 'sha1', 'sha256', 'sha512', 'blake2b'];

/**
 * Parse a manifest: {entries: [{name, rawName, line, hash, digest, binary, bsd}], badLines, lines}.
 * Malformed lines are not errors: they are listed in badLines (1-based).
 */
function parseManifest(text, { hash = 'auto', digestLength } = {}) {
  const r = native.manifestParse(textOf(text), manifestAlg(hash), lengthOf(digestLength));
  for (const e of r.entries) { e.hash = NAMES[e.alg]; delete e.alg; }
  return r;
}

/** The directory root of a manifest (RFC 6962 SHA-256 over its sorted entries); throws on a
 * malformed line or a duplicate name. */
const dirRoot = (text, { hash = 'auto', digestLength } = {}) =>
  native.manifestDirRoot(textOf(text), manifestAlg(hash), lengthOf(digestLength));

/**
 * Check the files a manifest lists (names relative to `dir`). Resolves to
 * {results: [{name, status: 'OK'|'FAILED'|'MISSING'|'ERROR', errno, fromCache, size, digest?}],
 *  ok: boolean, cacheSaved, cacheWarning?}; per-file failures are results. With `cache` (a file
 * path), unchanged files that verified before are not read again and new OKs are saved;
 * `cacheKey` makes the cache keyed (HMAC-SHA-256). A cache path that is not a cache is
 * refused (the Promise rejects with code MERKLE_ERR_UNSAFE) and never written over.
 */
async function checkManifest(text, { dir = null, threads = 0, cache = null, cacheKey = null, hash = 'auto', digestLength } = {}) {
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError('merkle: threads is a non-negative integer');
  if (cacheKey !== null && !(cacheKey instanceof Uint8Array)) throw new TypeError('merkle: cacheKey is a Uint8Array');
  const r = await native.manifestCheck(textOf(text), manifestAlg(hash), lengthOf(digestLength), dir, threads, cache, cacheKey);
  r.ok = r.results.every((x) => x.status === 'OK');
  return r;
}

module.exports = { parseManifest, dirRoot, checkManifest, MANIFEST_HASHES };
