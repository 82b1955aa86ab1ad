// SPDX-License-Identifier: MIT OR Apache-2.0
// The merkletreejs-compatible MerkleTree against merkletreejs itself (a devDependency) and the
// repository's merkletreejs vectors.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { MerkleTree: Peer } = require('merkletreejs');
const { MerkleTree } = require('../lib').merkletreejs;
const m = require('../lib');

const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const keccak = (b) => m.hash('keccak256', b);

test('roots of the repository vectors', () => {
  const d = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'tests', 'vectors', 'merkletreejs.json')));
  let n = 0;
  for (const v of d.trees) {
    if (v.options.isBitcoinTree) continue;
    const leaves = Array.from({ length: v.n }, (_, i) => { const b = Buffer.alloc(4); b.writeUInt32BE(i); return keccak(b); });
    const t = new MerkleTree(leaves, v.hash, v.options);
    assert.strictEqual(t.getRoot().toString('hex'), v.root, `${v.name} n=${v.n}`);
    n++;
  }
  assert.ok(n >= 40);
});

test('roots, layers and proofs equal merkletreejs for its common options', () => {
  const combos = [
    [{}, 'sha256', sha256], [{ sortPairs: true }, 'keccak256', keccak], [{ sort: true }, 'keccak256', keccak],
    [{ hashLeaves: true }, 'sha256', sha256], [{ duplicateOdd: true }, 'sha256', sha256],
    [{ sortLeaves: true, sortPairs: true, complete: true }, 'keccak256', keccak],
  ];
  for (const [opts, name, fn] of combos) {
    for (const n of [1, 2, 3, 4, 5, 9, 17, 64, 100]) {
      const leaves = Array.from({ length: n }, (_, i) => sha256(Buffer.from('leaf' + i + JSON.stringify(opts))));
      const a = new MerkleTree(leaves, name, opts);
      const b = new Peer(leaves, fn, opts);
      const what = `${JSON.stringify(opts)} n=${n}`;
      assert.strictEqual(a.getHexRoot(), b.getHexRoot(), what);
      assert.deepStrictEqual(a.getHexLayers(), b.getHexLayers(), what);
      for (let i = 0; i < n; i += Math.max(1, n >> 3)) {
        const leaf = a.getLeaves()[i];
        assert.deepStrictEqual(a.getHexProof(leaf), b.getHexProof(leaf), what);
        // the same verdict as merkletreejs (which cannot verify some duplicateOdd/complete leaves)
        const peerOk = b.verify(b.getProof(leaf), leaf, b.getRoot());
        assert.strictEqual(a.verify(a.getProof(leaf), leaf, a.getRoot()), peerOk, what + ' leaf ' + i);
        if (!opts.duplicateOdd && !opts.complete) assert.ok(peerOk);
        assert.strictEqual(a.verify(a.getProof(leaf), sha256(Buffer.from('x')), a.getRoot()), false);
      }
      // a function hash gives the same tree as the named one
      assert.strictEqual(new MerkleTree(leaves, fn, opts).getHexRoot(), a.getHexRoot());
    }
  }
  assert.throws(() => new MerkleTree([], 'sha256', { isBitcoinTree: true }), /not supported/);
  assert.throws(() => new MerkleTree([], 'md5'), /unknown hash/);
});
