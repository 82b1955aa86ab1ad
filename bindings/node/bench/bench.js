#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
// StandardMerkleTree.of / getProof / render-free dump on N (address, uint256) rows: this
// package against @openzeppelin/merkle-tree 1.0.8, and a sortPairs keccak256 tree against
// merkletreejs, in one run, alternating, median of R rounds. Not a test: run by hand
// (`npm run bench -- [N] [R]`); `--smoke` runs a tiny size once.
'use strict';
const crypto = require('node:crypto');
const OZ = require('@openzeppelin/merkle-tree');
const { MerkleTree: MTJS } = require('merkletreejs');
const merkle = require('../lib');

const smoke = process.argv.includes('--smoke');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = smoke ? 100 : Number(args[0] || 100000);
const R = smoke ? 1 : Number(args[1] || 5);
const rows = Array.from({ length: N }, (_, i) => ['0x' + crypto.createHash('sha256').update('a' + i).digest('hex').slice(0, 40), String(BigInt(i) * 10n ** 15n + 7n)]);
const leaves = rows.map((r) => merkle.hash('keccak256', Buffer.from(r[0].slice(2) + r[1], 'utf8')));
const keccak = (b) => merkle.hash('keccak256', b);

function time(fn) { const t = process.hrtime.bigint(); const r = fn(); return [Number(process.hrtime.bigint() - t) / 1e6, r]; }
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const cases = [
  ['StandardMerkleTree.of', () => OZ.StandardMerkleTree.of(rows, ['address', 'uint256']), () => merkle.openzeppelin.StandardMerkleTree.of(rows, ['address', 'uint256'])],
  ['of + 1000 getProof', () => { const t = OZ.StandardMerkleTree.of(rows, ['address', 'uint256']); for (let i = 0; i < 1000; i++) t.getProof(i % N); return t.root; },
    () => { const t = merkle.openzeppelin.StandardMerkleTree.of(rows, ['address', 'uint256']); for (let i = 0; i < 1000; i++) t.getProof(i % N); return t.root; }],
  ['merkletreejs sortPairs keccak256', () => new MTJS(leaves, keccak, { sortPairs: true }).getHexRoot(), () => new merkle.merkletreejs.MerkleTree(leaves, 'keccak256', { sortPairs: true }).getHexRoot()],
];
console.log(`N=${N} rows, ${R} rounds, median ms (load ${require('os').loadavg()[0].toFixed(1)})`);
for (const [name, peer, ours] of cases) {
  const tp = [], to = [];
  let rp, ro;
  for (let r = 0; r < R; r++) {
    let t;
    [t, rp] = time(peer); tp.push(t);
    [t, ro] = time(ours); to.push(t);
  }
  const same = (rp.root ?? rp) === (ro.root ?? ro);
  console.log(`${name.padEnd(34)} peer ${median(tp).toFixed(1).padStart(9)}  libmerkle ${median(to).toFixed(1).padStart(8)}  ${(median(tp) / median(to)).toFixed(1)}x  ${same ? 'same root' : 'ROOTS DIFFER'}`);
  if (!same) process.exitCode = 1;
}
