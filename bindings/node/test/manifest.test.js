// SPDX-License-Identifier: MIT OR Apache-2.0
// Checksum manifests against node:crypto (the reference): parse, directory root, check with
// and without the validation cache, and the error paths.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseManifest, dirRoot, checkManifest, rootList } = require('..');

function tree(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merkle-node-'));
  let md5 = '', sha = '';
  for (let i = 0; i < n; i++) {
    const name = `f${String(i).padStart(3, '0')}.bin`;
    const data = Buffer.alloc(100 * i + 1, i * 7);
    fs.writeFileSync(path.join(dir, name), data);
    md5 += `${crypto.createHash('md5').update(data).digest('hex')}  ${name}\n`;
    sha += `${crypto.createHash('sha256').update(data).digest('hex')}  ${name}\n`;
  }
  return { dir, md5, sha };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('parse: GNU, BSD and binary lines, malformed lines listed', () => {
  const m = parseManifest('d41d8cd98f00b204e9800998ecf8427e  empty\nnot a line\nSHA256 (b) = ' +
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nd41d8cd98f00b204e9800998ecf8427e *bin');
  assert.strictEqual(m.entries.length, 3);
  assert.strictEqual(m.lines, 4);
  assert.deepStrictEqual(m.badLines, [2]);
  assert.strictEqual(m.entries[0].hash, 'md5');
  assert.strictEqual(m.entries[0].digest.toString('hex'), 'd41d8cd98f00b204e9800998ecf8427e');
  assert.ok(m.entries[1].bsd && m.entries[1].hash === 'sha256' && m.entries[1].name === 'b');
  assert.ok(m.entries[2].binary && m.entries[2].line === 4);
  assert.throws(() => parseManifest('x', { hash: 'crc32' }), TypeError);
  assert.throws(() => parseManifest('x', { digestLength: 65 }), RangeError);
  assert.throws(() => parseManifest(42), TypeError);
});

test('dirRoot equals the RFC 6962 root of the sorted entry leaves', () => {
  const { dir, sha } = tree(7);
  const es = parseManifest(sha).entries.sort((a, b) => Buffer.compare(a.rawName, b.rawName));
  const leaves = es.map((e) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(e.rawName.length);
    return Buffer.concat([len, e.rawName, Buffer.from([3, e.digest.length]), e.digest]);
  });
  assert.deepStrictEqual(dirRoot(sha), rootList(leaves));
  assert.throws(() => dirRoot(sha + sha.split('\n')[0] + '\n'), { code: 'MERKLE_ERR_FORMAT' });
  assert.throws(() => dirRoot(sha + 'garbage\n'), { code: 'MERKLE_ERR_FORMAT' });
  fs.rmSync(dir, { recursive: true });
});

test('check: OK, FAILED with the new digest, MISSING; async', async () => {
  const { dir, md5, sha } = tree(30);
  for (const text of [md5, sha]) {
    const r = await checkManifest(text, { dir, threads: 3 });
    assert.ok(r.ok);
    r.results.forEach((x, i) => {
      assert.strictEqual(x.status, 'OK');
      assert.strictEqual(x.size, 100 * i + 1);
      assert.ok(!x.fromCache);
    });
  }
  fs.writeFileSync(path.join(dir, 'f001.bin'), 'changed');
  fs.rmSync(path.join(dir, 'f002.bin'));
  const r = await checkManifest(md5, { dir });
  assert.ok(!r.ok);
  assert.deepStrictEqual(r.results.slice(0, 3).map((x) => x.status), ['OK', 'FAILED', 'MISSING']);
  assert.strictEqual(r.results[1].digest.toString('hex'), crypto.createHash('md5').update('changed').digest('hex'));
  await assert.rejects(checkManifest(md5, { dir: 'a\0b' }), TypeError);
  await assert.rejects(checkManifest(md5, { threads: -1 }), RangeError);
  fs.rmSync(dir, { recursive: true });
});

test('check with the validation cache: answers for unchanged files only; never over a non-cache', async () => {
  const { dir, md5 } = tree(10);
  const cache = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'merkle-cache-')), 'cache');
  const key = Buffer.from('secret');
  let hit = false;
  // The cache answers only for files older than the moment they verified (racy timestamps).
  for (const wait of [50, 500, 1100]) {
    await sleep(wait);
    const first = await checkManifest(md5, { dir, cache, cacheKey: key });
    assert.ok(first.ok && first.cacheSaved !== undefined);
    const second = await checkManifest(md5, { dir, cache, cacheKey: key });
    if (second.results.every((x) => x.status === 'OK' && x.fromCache)) { hit = true; break; }
  }
  assert.ok(hit, 'the cache never answered for unchanged files');
  const f = path.join(dir, 'f004.bin');
  const b = fs.readFileSync(f);
  b[0] ^= 0xff; // same size, new content
  fs.writeFileSync(f, b);
  const r = await checkManifest(md5, { dir, cache, cacheKey: key });
  assert.strictEqual(r.results[4].status, 'FAILED');
  assert.ok(!r.results[4].fromCache);
  const other = await checkManifest(md5, { dir, cache, cacheKey: Buffer.from('another key') });
  assert.ok(!other.results[0].fromCache);
  const notCache = path.join(dir, 'f000.bin');
  const before = fs.readFileSync(notCache);
  await assert.rejects(checkManifest(md5, { dir, cache: notCache }), { code: 'MERKLE_ERR_UNSAFE' });
  assert.deepStrictEqual(fs.readFileSync(notCache), before);
  fs.rmSync(dir, { recursive: true });
});
