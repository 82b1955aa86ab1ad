#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Writes tests/vectors/keccak256.json and tests/vectors/openzeppelin.json.
//
//   cd /work/peers/js && npm install @openzeppelin/merkle-tree keccak
//   NODE_PATH=/work/peers/js/node_modules node tests/vectors/gen_openzeppelin.js tests/vectors
//
// keccak256.json: Keccak-256 (original padding) of message k of length L, byte j =
//   (j * 7 + L) mod 256, for lengths around the 136-byte rate, from @noble/hashes keccak_256
//   (used by @openzeppelin/merkle-tree through ethereum-cryptography) and the keccak npm
//   package's native binding (must agree).
// openzeppelin.json: @openzeppelin/merkle-tree SimpleMerkleTree.of(leaves) (leaf i =
//   keccak256(uint32_be(i))) and StandardMerkleTree.of(rows, types) for several ABI type
//   lists: root, leaf hashes, dump(), getProof and getMultiProof.
'use strict';
const fs = require('fs');
const path = require('path');
const { keccak_256 } = require('@noble/hashes/sha3');
const createKeccak = require('keccak/bindings');
const { SimpleMerkleTree, StandardMerkleTree } = require('@openzeppelin/merkle-tree');

const outDir = process.argv[2];
const hex = (b) => Buffer.from(b).toString('hex');
const version = (m) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(m)).replace(/(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1'), 'package.json'))).version;
function check(c, what) { if (!c) throw new Error('peer disagreement: ' + what); }

// ---------------------------------------------------------------- keccak
const kv = { source: '@noble/hashes ' + version('@noble/hashes/sha3') + ', keccak ' + version('keccak/bindings'), vectors: [] };
for (const L of [0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 135, 136, 137, 200, 271, 272, 273, 300, 1000, 4096]) {
  const m = Buffer.from(Array.from({ length: L }, (_, j) => (j * 7 + L) & 255));
  const a = hex(keccak_256(m));
  const b = createKeccak('keccak256').update(m).digest('hex');
  check(a === b, 'keccak ' + L);
  kv.vectors.push({ len: L, digest: a });
}
fs.writeFileSync(path.join(outDir, 'keccak256.json'), JSON.stringify(kv, null, 1) + '\n');

// ---------------------------------------------------------------- trees
const out = { source: '@openzeppelin/merkle-tree ' + version('@openzeppelin/merkle-tree'), simple: [], standard: [] };
const leaf = (i) => { const b = Buffer.alloc(4); b.writeUInt32BE(i); return '0x' + hex(keccak_256(b)); };
const strip = (h) => h.replace(/^0x/, '');

function proofs(t, n) {
  const idx = [...new Set([0, n - 1, n >> 1])];
  const single = idx.map((i) => ({ index: i, tree_index: t.dump().values[i].treeIndex, proof: t.getProof(i).map(strip) }));
  const sets = [[0], [0, n - 1], [n >> 1, 0, n - 1]];
  if (n >= 6) sets.push([1, 2, 3, 5]);
  if (n >= 2) sets.push(Array.from({ length: n }, (_, i) => i));
  const multi = sets.map((s) => [...new Set(s)]).filter((s) => s.length).map((s) => {
    const m = t.getMultiProof(s);
    return { indices: s, leaves: m.leaves, proof: m.proof.map(strip), proofFlags: m.proofFlags };
  });
  return { single, multi };
}

for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000]) {
  const leaves = Array.from({ length: n }, (_, i) => leaf(i));
  const t = SimpleMerkleTree.of(leaves);
  const p = proofs(t, n);
  p.multi.forEach((m) => { m.leaves = m.leaves.map(strip); });
  out.simple.push({ n, leaves: leaves.map(strip), root: strip(t.root), dump: n <= 9 ? t.dump() : undefined, ...p });
}
// Repeated leaves keep their input order among equals (a stable sort).
{
  const leaves = [leaf(3), leaf(1), leaf(3), leaf(2), leaf(1)];
  const t = SimpleMerkleTree.of(leaves);
  out.simple.push({ n: 5, name: 'repeated', leaves: leaves.map(strip), root: strip(t.root), dump: t.dump(), ...proofs(t, 5) });
  out.simple[out.simple.length - 1].multi = [];
}

const tables = [
  { types: ['address', 'uint256'], rows: [
    ['0x1111111111111111111111111111111111111111', '5000000000000000000'],
    ['0x2222222222222222222222222222222222222222', '2500000000000000000'],
    ['0xAbCdEf0123456789aBcDeF0123456789AbCdEf01', '0'],
    ['0x0000000000000000000000000000000000000001', '115792089237316195423570985008687907853269984665640564039457584007913129639935'] ] },
  { types: ['uint8', 'bool', 'int256', 'bytes4', 'bytes32', 'int8', 'uint64'], rows: [
    ['255', true, '-1', '0xdeadbeef', '0x' + '11'.repeat(32), '-128', '18446744073709551615'],
    ['0', false, '57896044618658097711785492504343953926634992332820282019728792003956564819967', '0x00000000', '0x' + '00'.repeat(32), '127', '1'],
    ['7', true, '-57896044618658097711785492504343953926634992332820282019728792003956564819968', '0x01020304', '0x' + 'ab'.repeat(32), '0', '0'] ] },
  { types: ['string', 'bytes', 'uint256'], rows: [
    ['hello', '0x', '1'], ['', '0x00', '2'], ['a string that is longer than thirty-two bytes, to span two words', '0x' + 'ff'.repeat(33), '3'],
    ['utf-8 é', '0x' + '01'.repeat(64), '4'] ] },
  { types: ['address', 'string', 'bytes32', 'bytes', 'bool'], rows: [
    ['0x3333333333333333333333333333333333333333', 'x', '0x' + '22'.repeat(32), '0xcafe', false],
    ['0x4444444444444444444444444444444444444444', 'yy', '0x' + '33'.repeat(32), '0x', true] ] },
];
for (const tb of tables) {
  const t = StandardMerkleTree.of(tb.rows, tb.types);
  const n = tb.rows.length;
  const p = proofs(t, n);
  const d = t.dump();
  const leafHashes = tb.rows.map((_, i) => strip(d.tree[d.values[i].treeIndex]));
  out.standard.push({ types: tb.types, rows: tb.rows, leaf_hashes: leafHashes, root: strip(t.root), dump: d, ...p });
}
fs.writeFileSync(path.join(outDir, 'openzeppelin.json'), JSON.stringify(out, null, 1) + '\n');
