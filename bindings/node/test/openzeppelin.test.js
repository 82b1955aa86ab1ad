// SPDX-License-Identifier: MIT OR Apache-2.0
// The drop-in against @openzeppelin/merkle-tree 1.0.8 itself (a devDependency) on random
// trees of every supported leaf type: roots, dump(), render(), proofs by index and by value,
// multiproofs, verification, leafLookup, validate/load, and the same errors.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const OZ = require('@openzeppelin/merkle-tree');
const ours = require('../lib').openzeppelin;

let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const hex = (n) => '0x' + crypto.createHash('sha256').update(String(rnd(1e9))).digest('hex').repeat(4).slice(0, 2 * n);

const GEN = {
  address: () => hex(20),
  bool: () => rnd(2) === 1,
  uint8: () => String(rnd(256)),
  uint64: () => BigInt(rnd(1e9)) * 1000000007n,
  uint256: () => (rnd(3) === 0 ? '0x' + hex(32).slice(2).replace(/^0+/, '1') : String(BigInt(rnd(1e9)) * 10n ** 18n)),
  int256: () => String(BigInt(rnd(1e9)) * (rnd(2) ? -1n : 1n) * 10n ** 30n),
  int16: () => rnd(65536) - 32768,
  bytes32: () => hex(32),
  bytes4: () => hex(4),
  bytes: () => hex(rnd(70)),
  string: () => 'käse-' + 'x'.repeat(rnd(40)) + rnd(1000),
  'uint256[]': () => Array.from({ length: rnd(4) }, () => String(rnd(1e6))),
  'address[2]': () => [hex(20), hex(20)],
  '(address,uint256)': () => [hex(20), String(rnd(1e9))],
  'string[]': () => Array.from({ length: rnd(3) }, () => 's' + rnd(100)),
  '(bytes,bool)[]': () => Array.from({ length: rnd(3) }, () => [hex(rnd(40)), rnd(2) === 1]),
};

const ENCODINGS = [
  ['address', 'uint256'],
  ['bool'], ['uint8'], ['uint64'], ['int256'], ['int16'], ['bytes32'], ['bytes4'], ['bytes'], ['string'],
  ['uint256[]'], ['address[2]'], ['(address,uint256)'], ['string[]'], ['(bytes,bool)[]'],
  ['address', 'string', 'bytes', 'uint256[]', 'bool'],
];

const json = (x) => JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? 'n' + v.toString() : v));

test('StandardMerkleTree equals OpenZeppelin 1.0.8 on random trees of every leaf type', () => {
  let trees = 0;
  for (const enc of ENCODINGS) {
    for (const n of [1, 2, 3, 5, 8, 13, 33]) {
      for (const sortLeaves of [true, false]) {
        const values = Array.from({ length: n }, () => enc.map((t) => GEN[t]()));
        if (n > 2) values[n - 1] = values[0]; // a duplicate value
        const a = ours.StandardMerkleTree.of(values, enc, { sortLeaves });
        const b = OZ.StandardMerkleTree.of(values, enc, { sortLeaves });
        const what = `${enc} n=${n} sort=${sortLeaves}`;
        assert.strictEqual(a.root, b.root, what);
        assert.strictEqual(json(a.dump()), json(b.dump()), what);
        assert.strictEqual(a.render(), b.render(), what);
        assert.strictEqual(a.length, b.length);
        for (let i = 0; i < n; i++) {
          assert.deepStrictEqual(a.getProof(i), b.getProof(i), what + ' proof ' + i);
          assert.deepStrictEqual(a.getProof(values[i]), b.getProof(values[i]), what + ' proof by value ' + i);
          assert.strictEqual(a.leafLookup(values[i]), b.leafLookup(values[i]));
          assert.strictEqual(a.leafHash(values[i]), b.leafHash(values[i]));
          assert.ok(ours.StandardMerkleTree.verify(a.root, enc, values[i], a.getProof(i)));
          assert.ok(a.verify(i, b.getProof(i)));
        }
        const pick = [...new Set(Array.from({ length: Math.min(n, 4) }, () => rnd(n)))];
        if (new Set(pick.map((i) => a.dump().values[i].treeIndex)).size === pick.length) {
          const ma = a.getMultiProof(pick), mb = b.getMultiProof(pick);
          assert.strictEqual(json(ma), json(mb), what + ' multiproof');
          assert.ok(a.verifyMultiProof(ma));
          assert.ok(ours.StandardMerkleTree.verifyMultiProof(a.root, enc, mb));
        }
        const loaded = ours.StandardMerkleTree.load(JSON.parse(JSON.stringify(b.dump(), (k, v) => (typeof v === 'bigint' ? v.toString() : v))));
        assert.strictEqual(loaded.root, b.root);
        loaded.validate();
        assert.deepStrictEqual([...a.entries()].map(([i]) => i), [...b.entries()].map(([i]) => i));
        trees++;
      }
    }
  }
  assert.strictEqual(trees, ENCODINGS.length * 14);
});

test('wrong proofs, values and dumps are refused as OpenZeppelin refuses them', () => {
  const enc = ['address', 'uint256'];
  const values = Array.from({ length: 6 }, () => [GEN.address(), GEN.uint256()]);
  const a = ours.StandardMerkleTree.of(values, enc);
  const b = OZ.StandardMerkleTree.of(values, enc);
  const proof = a.getProof(2);
  const bad = proof.slice();
  bad[0] = '0x' + '00'.repeat(32);
  assert.strictEqual(a.verify(2, bad), b.verify(2, bad));
  assert.strictEqual(a.verify(2, bad), false);
  assert.strictEqual(ours.StandardMerkleTree.verify(a.root, enc, values[3], proof), false);
  assert.throws(() => a.leafLookup([GEN.address(), '1']), { name: 'InvalidArgumentError', message: 'Leaf is not in tree' });
  assert.throws(() => b.leafLookup([GEN.address(), '1']), { message: 'Leaf is not in tree' });
  assert.throws(() => a.getProof(99), { message: 'Index out of bounds' });
  assert.throws(() => ours.StandardMerkleTree.of([], enc), { message: 'Expected non-zero number of leaves' });
  assert.throws(() => ours.StandardMerkleTree.of([['0x12', '1']], enc)); // address too short
  assert.throws(() => ours.StandardMerkleTree.of([[GEN.address(), '-1']], enc), RangeError);
  assert.throws(() => ours.StandardMerkleTree.of([[GEN.address(), (1n << 256n).toString()]], enc), RangeError);
  const dump = a.dump();
  assert.throws(() => ours.StandardMerkleTree.load({ ...dump, format: 'nope' }), { message: "Unknown format 'nope'" });
  const forged = JSON.parse(JSON.stringify(dump));
  forged.tree[1] = '0x' + '11'.repeat(32);
  assert.throws(() => ours.StandardMerkleTree.load(forged), { name: 'InvariantError' });
  assert.throws(() => OZ.StandardMerkleTree.load(forged), { name: 'InvariantError' });
  const swapped = JSON.parse(JSON.stringify(dump));
  swapped.values[0].value = values[1];
  assert.throws(() => ours.StandardMerkleTree.load(swapped), { message: 'Merkle tree does not contain the expected value' });
  assert.throws(() => a.getMultiProof([1, 1]), { message: 'Cannot prove duplicated index' });
});

test('SimpleMerkleTree equals OpenZeppelin, with and without a custom node hash', () => {
  // a custom node hash must be commutative, as processProof does not know the sides
  const nodeHash = (x, y) => {
    const [p, q] = [x, y].sort();
    return '0x' + crypto.createHash('sha256').update(Buffer.from(p.slice(2) + q.slice(2), 'hex')).digest('hex');
  };
  for (const n of [1, 2, 7, 16, 31]) {
    const leaves = Array.from({ length: n }, () => hex(32));
    for (const opts of [{}, { sortLeaves: false }, { nodeHash }]) {
      const a = ours.SimpleMerkleTree.of(leaves, opts);
      const b = OZ.SimpleMerkleTree.of(leaves, opts);
      assert.strictEqual(a.root, b.root);
      assert.strictEqual(JSON.stringify(a.dump()), JSON.stringify(b.dump()));
      assert.strictEqual(a.render(), b.render());
      for (let i = 0; i < n; i++) {
        assert.deepStrictEqual(a.getProof(leaves[i]), b.getProof(leaves[i]));
        assert.ok(ours.SimpleMerkleTree.verify(a.root, leaves[i], a.getProof(i), opts.nodeHash));
      }
      const c = ours.SimpleMerkleTree.load(b.dump(), opts.nodeHash);
      assert.strictEqual(c.root, b.root);
    }
  }
  assert.throws(() => ours.SimpleMerkleTree.of([1]), { message: 'Leaf values cannot be numbers' });
  const d = ours.SimpleMerkleTree.of([hex(32)]).dump();
  assert.throws(() => ours.SimpleMerkleTree.load(d, (a) => a), { message: 'Data does not expect a custom node hashing function' });
});
