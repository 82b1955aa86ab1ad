#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Writes tests/vectors/bitcoin.json: Bitcoin block transaction trees computed by the peers.
//
//   cd /work/peers/js && npm install bitcoinjs-lib merkle-lib
//   NODE_PATH=/work/peers/js/node_modules node tests/vectors/gen_bitcoin.js BLOCK_JSON > tests/vectors/bitcoin.json
//
// BLOCK_JSON is test/fixtures/block.json of github.com/bitcoinjs/bitcoinjs-lib (real mainnet
// and testnet blocks as raw hex). For each full block: txids parsed by bitcoinjs-lib, its
// merkle root recomputed with Block.calculateMerkleRoot and checked against the header's
// (checkTxRoots), and the witness root over the wtxids (coinbase = zero) whose commitment
// hash256(root || reserved) must equal the block's witness commitment. Block 100000's four
// txids (mainnet; root f3e94742...) are listed by hand and checked with both peers.
// Synthetic trees: txid_i = hash256(uint32_le(i)); root from merkle-lib fastRoot and
// bitcoinjs-lib fastMerkleRoot (must agree), mutation flag from bitcoinjs-lib, branches
// read from merkle-lib's proof. All hashes are in display order (byte-reversed), as the CLI
// takes and prints them.
'use strict';
const crypto = require('crypto');
const { Block } = require('bitcoinjs-lib');
const fastRoot = require('merkle-lib/fastRoot');
const merkle = require('merkle-lib');
const merkleProof = require('merkle-lib/proof');
const fs = require('fs');

const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const hash256 = (b) => sha256(sha256(b));
const disp = (b) => Buffer.from(b).reverse().toString('hex');
const internal = (hex) => Buffer.from(hex, 'hex').reverse();

// bitcoinjs-lib's own merkle root with its mutated flag (Block.calculateMerkleRoot over
// objects that only have getHash).
function bjsRoot(hashes) {
  const mutated = { value: false };
  const txs = hashes.map((h) => ({ getHash: () => h }));
  const r = Block.calculateMerkleRoot(txs, false, mutated);
  return { root: Buffer.from(r), mutated: mutated.value };
}

function check(cond, what) {
  if (!cond) throw new Error('peer disagreement: ' + what);
}

function tree(name, hashes, extra) {
  const a = bjsRoot(hashes);
  const b = fastRoot(hashes.map(Buffer.from), hash256);
  check(a.root.equals(b), name);
  return Object.assign({ name, txids: hashes.map(disp), root: disp(a.root), mutated: a.mutated }, extra || {});
}

function branches(hashes, indices) {
  const t = merkle(hashes.map(Buffer.from), hash256);
  return indices.map((index) => {
    if (hashes.length === 1) return { index, branch: [] };
    const p = merkleProof(t, t[index]);
    // merkle-lib: [left, right] of the leaf level, then per level (sibling|null, null|sibling), then the root.
    const path = [index & 1 ? p[0] : p[1]];
    for (let k = 2; k + 1 < p.length; k += 2) path.push(p[k] || p[k + 1]);
    check(merkleProof.verify(p, hash256), 'merkle-lib proof ' + index);
    return { index, branch: path.map(disp) };
  });
}

const path = require('path');
const version = (m) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(m)).replace(/(node_modules\/[^/]+).*/, '$1'), 'package.json'), 'utf8')).version;
const out = { source: 'bitcoinjs-lib ' + version('bitcoinjs-lib') + ', merkle-lib ' + version('merkle-lib'),
  blocks: [], synthetic: [] };

const fixtures = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
for (const f of fixtures.valid) {
  if (!f.hex || f.hex.length <= 160) continue; // headers only
  const blk = Block.fromHex(f.hex);
  check(blk.checkTxRoots(), f.description + ' checkTxRoots');
  const txids = blk.transactions.map((t) => t.getHash(false));
  const t = tree(f.description, txids, { block: f.id, header_root: disp(blk.merkleRoot) });
  check(t.root === t.header_root, f.description + ' header root');
  if (blk.witnessCommit) {
    const wt = blk.transactions.map((tx) => tx.getHash(true));
    const wr = bjsRoot(wt).root;
    const reserved = Buffer.from(blk.transactions[0].ins[0].witness[0]);
    check(hash256(Buffer.concat([wr, reserved])).equals(Buffer.from(blk.witnessCommit)), 'witness commitment');
    t.witness = { wtxids: wt.map(disp), root: disp(wr), reserved: Buffer.from(reserved).toString('hex'),
                  commitment: Buffer.from(blk.witnessCommit).toString('hex') };
  }
  t.proofs = branches(txids, [0, txids.length - 1, txids.length >> 1]);
  out.blocks.push(t);
}

// Mainnet block 100000 (000000000003ba27aa200b1cecaad478d2b00432346c3f1f3986da1afd33e506).
const b100k = ['8c14f0db3df150123e6f3dbbf30f8b955a8249b62ac1d1ff16284aefa3d06d87',
  'fff2525b8931402dd09222c50775608f75787bd2b87e56995a7bdd30f79702c4',
  '6359f0868171b1d194cbee1af2f16ea598ae8fad666d9b012c8ed2b79a236ec4',
  'e9a66845e05d5abc0ad04ec80f774a7e585c6e8db975962d069a522137b80c1d'].map(internal);
const t100k = tree('block 100000', b100k, { block: '000000000003ba27aa200b1cecaad478d2b00432346c3f1f3986da1afd33e506' });
check(t100k.root === 'f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766', 'block 100000 root');
t100k.proofs = branches(b100k, [0, 1, 2, 3]);
out.blocks.push(t100k);

const txid = (i) => { const b = Buffer.alloc(4); b.writeUInt32LE(i); return hash256(b); };
for (const n of [1, 2, 3, 5, 6, 7, 8, 9, 15, 16, 17, 100, 255, 256, 257, 513]) {
  const hs = Array.from({ length: n }, (_, i) => txid(i));
  const t = tree('n=' + n, hs);
  const idx = [...new Set([0, n - 1, n >> 1, Math.min(n - 1, 5)])];
  t.proofs = branches(hs, idx);
  out.synthetic.push(t);
}
// CVE-2012-2459: [a..k] and [a..k, k] have the same root; the second is mutated. Also an equal
// pair inside a level, and duplicates that are not siblings (not mutated).
for (const n of [3, 5, 9, 33]) {
  const hs = Array.from({ length: n }, (_, i) => txid(i));
  out.synthetic.push(tree('n=' + n + ' last repeated', hs.concat([hs[n - 1]])));
}
{
  const hs = Array.from({ length: 8 }, (_, i) => txid(i));
  hs[5] = hs[4];
  out.synthetic.push(tree('equal pair 4,5 of 8', hs));
  const gs = Array.from({ length: 8 }, (_, i) => txid(i));
  gs[2] = gs[1];
  out.synthetic.push(tree('equal non-siblings 1,2 of 8', gs));
  // Equal nodes one level up: leaves 0..3 repeated as 4..7.
  const us = Array.from({ length: 4 }, (_, i) => txid(i));
  out.synthetic.push(tree('equal subtrees 0-3,4-7', us.concat(us)));
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
