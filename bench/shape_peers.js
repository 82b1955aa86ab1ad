#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// The peers of bench_shape, timed in one Node process:
//   node bench/shape_peers.js PEERS_DIR SSZ_CHUNKS BTC_TXIDS REPS [OZ_LEAVES KECCAK_MSGS]
// PEERS_DIR holds node_modules with @chainsafe/hashtree, @chainsafe/ssz, merkle-lib,
// bitcoinjs-lib, @openzeppelin/merkle-tree and keccak (npm install them there; nothing of
// this is in the repository).
// Prints one line per peer: "<name> <median milliseconds> <root hex>".
'use strict';
const path = require('path');
const crypto = require('crypto');
const { createRequire } = require('module');
const [dir, nSsz, nBtc, reps, nOz, nKec] = [process.argv[2], +process.argv[3], +process.argv[4],
  +process.argv[5] || 3, +process.argv[6] || 0, +process.argv[7] || 0];
const req = createRequire(path.join(path.resolve(dir), 'package.json'));

const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const hash256 = (b) => sha256(sha256(b));
function median(f, n) {
  const t = [];
  let r;
  for (let i = 0; i < n; i++) {
    const a = process.hrtime.bigint();
    r = f();
    t.push(Number(process.hrtime.bigint() - a) / 1e6);
  }
  t.sort((x, y) => x - y);
  return [t[t.length >> 1], Buffer.from(r).toString('hex')];
}
function out(name, [ms, root]) {
  console.log(name + ' ' + ms.toFixed(3) + ' ' + root);
}

// SSZ: chunk i = sha256(uint32_le(i)); List[Bytes32, N] with N = the chunk count (a power of two).
if (nSsz > 0) {
  const chunks = Array.from({ length: nSsz }, (_, i) => { const b = Buffer.alloc(4); b.writeUInt32LE(i); return sha256(b); });
  const flat = Buffer.concat(chunks);
  const ht = req('@chainsafe/hashtree');
  // hashtree: the whole level in one hashInto call, level by level (into two buffers
  // allocated once, outside the timing), then the length mix-in.
  const bufs = [Buffer.alloc(flat.length / 2), Buffer.alloc(flat.length / 2)];
  out('hashtree-levels', median(() => {
    let level = flat;
    for (let k = 0; level.length > 32; k ^= 1) {
      const next = bufs[k].subarray(0, level.length / 2);
      ht.hashInto(level, next);
      level = next;
    }
    const mix = Buffer.alloc(64);
    level.copy(mix, 0);
    mix.writeUInt32LE(nSsz, 32);
    return ht.hash(mix);
  }, reps));
  const { ListCompositeType, ByteVectorType } = req('@chainsafe/ssz');
  const t = new ListCompositeType(new ByteVectorType(32), nSsz);
  out('chainsafe-ssz-hashTreeRoot', median(() => t.hashTreeRoot(chunks), Math.max(1, reps >> 1)));
}

// Bitcoin: txid i = hash256(uint32_le(i)) (internal order); root in internal order.
if (nBtc > 0) {
  const txids = Array.from({ length: nBtc }, (_, i) => { const b = Buffer.alloc(4); b.writeUInt32LE(i); return hash256(b); });
  const fastRoot = req('merkle-lib/fastRoot');
  out('merkle-lib-fastRoot', median(() => fastRoot(txids, hash256), Math.max(1, reps >> 1)));
  const { Block } = req('bitcoinjs-lib');
  const txs = txids.map((h) => ({ getHash: () => h }));
  out('bitcoinjs-calculateMerkleRoot', median(() => Block.calculateMerkleRoot(txs), Math.max(1, reps >> 1)));
}

// OpenZeppelin: SimpleMerkleTree.of(leaf hashes) (sorting, the tree array) and its root;
// leaf i = keccak256(uint32_be(i)).
if (nOz > 0) {
  const createKeccak = req('keccak/bindings');
  const leaves = Array.from({ length: nOz }, (_, i) => { const b = Buffer.alloc(4); b.writeUInt32BE(i);
    return '0x' + createKeccak('keccak256').update(b).digest('hex'); });
  const { SimpleMerkleTree } = req('@openzeppelin/merkle-tree');
  out('openzeppelin-SimpleMerkleTree.of', median(() => Buffer.from(SimpleMerkleTree.of(leaves).root.slice(2), 'hex'), 1));
}
// keccak (native binding): one 64-byte message per call; total for nKec messages.
if (nKec > 0) {
  const createKeccak = req('keccak/bindings');
  const msg = Buffer.alloc(64 * nKec);
  for (let i = 0; i < msg.length; i++) msg[i] = (i * 13) & 255;
  out('keccak-native-64B', median(() => {
    let last;
    for (let i = 0; i < nKec; i++) last = createKeccak('keccak256').update(msg.subarray(64 * i, 64 * i + 64)).digest();
    return last;
  }, reps));
}
