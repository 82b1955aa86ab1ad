// SPDX-License-Identifier: MIT OR Apache-2.0
// The core API on the shared reference vectors (tests/vectors of the repository, and the real
// Chia programs of ../shared/vectors when present), plus its error paths.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const m = require('../lib');

const repo = path.join(__dirname, '..', '..', '..');
const vectors = (name) => JSON.parse(fs.readFileSync(path.join(repo, 'tests', 'vectors', name), 'utf8'));
const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => Buffer.from(s.replace(/^0x/, ''), 'hex');
const leavesOf = (input) => {
  const l = input.leaves;
  if (l.gen === 'decimal') return Array.from({ length: l.n }, (_, i) => Buffer.from(String(i)));
  return l.leaves.map(unhex);
};
const counter = (n) => Buffer.from(Array.from({ length: n }, (_, k) => k % 251));

test('RFC 6962, CometBFT and Sia vectors', () => {
  const counts = { root: 0, proof: 0, consistency: 0, verify: 0, sia: 0 };
  for (const v of vectors('merkle-public.json').vectors) {
    const alg = v.hash, input = v.input, exp = v.expected;
    if ((v.format === 'rfc6962' || v.format === 'cometbft') && v.op === 'root') {
      assert.strictEqual(hex(m.rootList(leavesOf(input), { hash: alg })), exp.root, v.id);
      counts.root++;
    } else if ((v.format === 'rfc6962' && v.op === 'inclusion_proof') || (v.format === 'cometbft' && v.op === 'proof')) {
      const hashes = leavesOf(input).map((l) => m.leafHash(l, alg));
      if (exp.error) {
        assert.throws(() => m.inclusionProof(hashes, input.index, alg), { code: 'MERKLE_ERR_RANGE' }, v.id);
      } else {
        const p = m.inclusionProof(hashes, input.index, alg);
        assert.deepStrictEqual(p.path.map(hex), exp.path || exp.aunts, v.id);
        assert.strictEqual(hex(p.root), exp.root);
        assert.ok(m.verifyInclusion(p.root, hashes.length, input.index, hashes[input.index], p.path, alg));
        const other = Buffer.from(hashes[input.index]);
        other[0] ^= 1;
        assert.strictEqual(m.verifyInclusion(p.root, hashes.length, input.index, other, p.path, alg), false);
      }
      counts.proof++;
    } else if (v.format === 'rfc6962' && v.op === 'consistency_proof') {
      const hashes = leavesOf(input).map((l) => m.leafHash(l, alg));
      if (exp.error) {
        assert.throws(() => m.consistencyProof(hashes, input.old_size, alg), { code: 'MERKLE_ERR_RANGE' });
      } else {
        const p = m.consistencyProof(hashes, input.old_size, alg);
        assert.deepStrictEqual(p.path.map(hex), exp.proof, v.id);
        assert.strictEqual(hex(p.oldRoot), exp.old_root);
        assert.ok(m.verifyConsistency(p.oldRoot, p.newRoot, input.old_size, hashes.length, p.path, alg));
      }
      counts.consistency++;
    } else if (v.format === 'rfc6962' && (v.op === 'verify_inclusion' || v.op === 'verify_consistency')) {
      const all = [...input.proof, input.root, input.leaf_hash, input.root1, input.root2].filter((x) => x !== undefined);
      if (!all.every((h) => h.length === 64)) continue; // the API takes 32-byte hashes only
      const sizes = [input.index, input.tree_size, input.size1, input.size2].filter((x) => x !== undefined);
      if (!sizes.every(Number.isSafeInteger)) continue; // JSON numbers past 2^53 are not exact in JavaScript
      const ok = v.op === 'verify_inclusion'
        ? m.verifyInclusion(unhex(input.root), input.tree_size, input.index, unhex(input.leaf_hash), input.proof.map(unhex))
        : m.verifyConsistency(unhex(input.root1), unhex(input.root2), input.size1, input.size2, input.proof.map(unhex));
      assert.strictEqual(ok, exp.valid, v.id);
      counts.verify++;
    } else if (v.op === 'reader_root' && v.format.startsWith('sia')) {
      const data = counter(input.stream.len);
      if (exp.error) {
        assert.throws(() => m.rootBytes(data, { profile: 'sia', hash: alg, leafSize: input.segment_size }));
      } else if (exp.root !== null) {
        assert.strictEqual(hex(m.rootBytes(data, { profile: 'sia', hash: alg, leafSize: input.segment_size })), exp.root, v.id);
      }
      counts.sia++;
    }
  }
  assert.ok(counts.root >= 33 && counts.proof >= 24 && counts.consistency >= 11 && counts.verify >= 140 && counts.sia >= 39, JSON.stringify(counts));
});

test('merkledb tries and key proofs', () => {
  const t = vectors('tree-public.json').merkledb.trie_root;
  let n = 0;
  for (const v of t) {
    const trie = new m.Trie(v.branch_factor);
    if (Array.isArray(v.kv)) {
      for (const [k, val] of v.kv) trie.put(unhex(k), unhex(val));
    } else if (typeof v.kv_generator === 'string' && v.kv_generator.startsWith('for i in 0..num_keys-1: key = uvarint(i)')) {
      for (let i = 0; i < v.num_keys; i++) {
        const k = [];
        for (let x = i; ; x = Math.floor(x / 128)) { if (x < 128) { k.push(x); break; } k.push((x % 128) | 128); }
        trie.put(Buffer.from(k), m.hash('sha256', Buffer.from(k)));
      }
    } else continue;
    const root = trie.root();
    assert.strictEqual(hex(root), v.expected_root_hex, v.id);
    if (trie.size > 0) {
      const key = Buffer.from('not-a-key-of-any-vector');
      const p = trie.prove(key);
      assert.ok(m.Trie.verifyKey(root, p, key, null));
      assert.strictEqual(m.Trie.verifyKey(root, p, Buffer.from('other'), null), false);
      assert.strictEqual(m.Trie.verifyKey(root, p, key, Buffer.from('x')), false);
    }
    trie.close();
    n++;
  }
  assert.ok(n >= 8);
  const tr = new m.Trie(16);
  tr.put(Buffer.from('k'), Buffer.from('v'));
  assert.deepStrictEqual(tr.get(Buffer.from('k')), Buffer.from('v'));
  assert.strictEqual(tr.get(Buffer.from('nope')), null);
  const p = tr.prove(Buffer.from('k'));
  assert.ok(m.Trie.verifyKey(tr.root(), p, Buffer.from('k'), Buffer.from('v')));
  const bad = Buffer.from(p);
  bad[bad.length - 1] ^= 1;
  assert.strictEqual(m.Trie.verifyKey(tr.root(), bad, Buffer.from('k'), Buffer.from('v')), false);
  assert.strictEqual(tr.delete(Buffer.from('k')), true);
  tr.close();
  assert.throws(() => tr.root(), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => new m.Trie(3), { code: 'MERKLE_ERR_ARG' });
});

test('CLVM vectors and real Chia programs (clvm_rs output)', (t) => {
  const c = vectors('tree-public.json').clvm;
  for (const v of c.tree_hash) {
    if (typeof v.canonical_hex !== 'string') continue;
    assert.strictEqual(hex(m.clvm.treeHash(unhex(v.canonical_hex))), v.tree_hash_hex, v.id);
  }
  for (const v of c.backref_decode) {
    if (v.expect === 'ok') {
      if (v.canonical_hex) assert.strictEqual(hex(m.clvm.nodeToBytes(unhex(v.input_hex))), v.canonical_hex, v.id);
    } else {
      assert.throws(() => m.clvm.nodeToBytes(unhex(v.input_hex)), /./, v.id);
    }
  }
  const real = path.join(repo, '..', 'shared', 'vectors', 'clvm-real-public.json.gz');
  if (!fs.existsSync(real)) {
    t.diagnostic(`skipped the real programs: ${real} is absent (real-chain data is not in the repository)`);
    return;
  }
  const d = JSON.parse(zlib.gunzipSync(fs.readFileSync(real)));
  assert.ok(d.cases.length > 0);
  for (const v of d.cases) {
    const canon = unhex(v.canonical);
    assert.strictEqual(hex(m.clvm.nodeToBytesBackrefs(canon)), v.backrefs, v.name);
    assert.strictEqual(hex(m.clvm.treeHash(canon)), v.tree_hash);
    assert.ok(m.clvm.nodeToBytes(unhex(v.backrefs)).equals(canon));
  }
});

test('error paths throw with the library status', () => {
  assert.throws(() => m.rootList([Buffer.from('a')], { profile: 'bitcoin' }), { code: 'MERKLE_ERR_ARG' });
  assert.throws(() => m.rootList(['not bytes']), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => m.rootBytes(Buffer.from('x'), { leafSize: 0 }), /./);
  assert.throws(() => m.verifyInclusion(Buffer.alloc(31), 1, 0, Buffer.alloc(32), []), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => m.inclusionProof([Buffer.alloc(32)], -1), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => m.clvm.treeHash(Buffer.from([0xff, 0x01])), { code: 'MERKLE_ERR_FORMAT' });
  assert.throws(() => m.clvm.treeHash(Buffer.from([0x80, 0x80])), { code: 'MERKLE_ERR_FORMAT', message: /trailing/ });
  assert.throws(() => m.hash('md4', Buffer.alloc(1)), TypeError);
  assert.strictEqual(m.verifyInclusion(Buffer.alloc(32), 0, 0, Buffer.alloc(32), []), false);
});
