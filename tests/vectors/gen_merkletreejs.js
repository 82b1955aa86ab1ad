#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Writes tests/vectors/merkletreejs.json: roots of merkletreejs MerkleTree for the options
// that map onto merkle_shape flags (sortPairs, sortLeaves, duplicateOdd, isBitcoinTree,
// complete), over leaves i = keccak256(uint32_be(i)) given as leaf hashes (hashLeaves false).
//
//   cd /work/peers/js && npm install merkletreejs @openzeppelin/merkle-tree
//   NODE_PATH=/work/peers/js/node_modules node tests/vectors/gen_merkletreejs.js > tests/vectors/merkletreejs.json
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { MerkleTree } = require('merkletreejs');
const { keccak_256 } = require('@noble/hashes/sha3');
const { SimpleMerkleTree } = require('@openzeppelin/merkle-tree');

const keccak = (b) => Buffer.from(keccak_256(b));
const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const leaf = (i) => { const b = Buffer.alloc(4); b.writeUInt32BE(i); return keccak(b); };
const version = (m) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(m)), '..', 'package.json'))).version;

const combos = [
  { name: 'plain sha256', hash: 'sha256', options: {} },
  { name: 'sortPairs keccak256', hash: 'keccak256', options: { sortPairs: true } },
  { name: 'sortLeaves sortPairs keccak256', hash: 'keccak256', options: { sortLeaves: true, sortPairs: true } },
  { name: 'duplicateOdd sha256', hash: 'sha256', options: { duplicateOdd: true } },
  { name: 'isBitcoinTree sha256', hash: 'sha256', options: { isBitcoinTree: true } },
  { name: 'complete sortLeaves sortPairs keccak256', hash: 'keccak256', options: { complete: true, sortLeaves: true, sortPairs: true } },
];
const out = { source: 'merkletreejs ' + version('merkletreejs'), trees: [] };
for (const c of combos) {
  for (const n of [1, 2, 3, 5, 7, 8, 13, 100]) {
    const leaves = Array.from({ length: n }, (_, i) => leaf(i));
    const t = new MerkleTree(leaves, c.hash === 'sha256' ? sha256 : keccak, c.options);
    const e = { name: c.name, hash: c.hash, options: c.options, n, root: t.getRoot().toString('hex') };
    if (c.options.complete)
      e.same_as_openzeppelin = SimpleMerkleTree.of(leaves.map((l) => '0x' + l.toString('hex'))).root.slice(2) === e.root;
    out.trees.push(e);
  }
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
