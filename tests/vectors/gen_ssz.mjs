#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// Writes tests/vectors/ssz.json: SSZ hash_tree_root merkleisation of lists of 32-byte chunks,
// generalized-index branches and multiproofs, computed by the peers.
//
//   cd /work/peers/js && npm install @chainsafe/ssz @chainsafe/persistent-merkle-tree
//   cp tests/vectors/gen_ssz.mjs /work/peers/js/ && node /work/peers/js/gen_ssz.mjs > tests/vectors/ssz.json
//   (run from a directory whose node_modules holds the peers: ESM ignores NODE_PATH)
//
// Chunk i = sha256(uint32_le(i)). For each case:
//   root         @chainsafe/persistent-merkle-tree subtreeFillToContents(chunks, depth) (depth
//                = ceil(log2(limit or n))), and for the plain case also @chainsafe/ssz
//                VectorCompositeType(ByteVectorType(32), n).hashTreeRoot (must agree);
//   list root    with mix-in: @chainsafe/ssz ListCompositeType(ByteVectorType(32), limit)
//                .hashTreeRoot, and the tree's root with the length mixed in (must agree);
//   branches     createProof({type: single, gindex}) on that tree: leaf and witnesses
//                (bottom-up) for some leaves and inner nodes;
//   multiproofs  createProof({type: multi, gindices}): leaves and witnesses keyed by their
//                gindex (the witness gindices from computeMultiProofBitstrings), the witnesses
//                in decreasing gindex order (the consensus specs' helper order).
import crypto from 'crypto';
import fs from 'fs';
import { ByteVectorType, ListCompositeType, VectorCompositeType } from '@chainsafe/ssz';
import { LeafNode, BranchNode, subtreeFillToContents, createProof, ProofType, zeroNode }
  from '@chainsafe/persistent-merkle-tree';
// Not exported by the package: the helper gindices of a multiproof (their witness order).
const { computeMultiProofBitstrings } = await import(new URL(
  './node_modules/@chainsafe/persistent-merkle-tree/lib/proof/util.js', import.meta.url));

const sha256 = (b) => crypto.createHash('sha256').update(b).digest();
const hex = (b) => Buffer.from(b).toString('hex');
const chunk = (i) => { const b = Buffer.alloc(4); b.writeUInt32LE(i); return sha256(b); };
const ceilLog2 = (n) => { let d = 0; while (2 ** d < n) d++; return d; };
const version = (m) => JSON.parse(fs.readFileSync(new URL('./node_modules/' + m + '/package.json', import.meta.url))).version;
function check(c, what) { if (!c) throw new Error('peer disagreement: ' + what); }

const out = { source: '@chainsafe/ssz ' + version('@chainsafe/ssz') + ', @chainsafe/persistent-merkle-tree ' +
  version('@chainsafe/persistent-merkle-tree'), cases: [] };

function build(chunks, limit, mixIn) {
  const depth = ceilLog2(limit || chunks.length);
  const data = chunks.length ? subtreeFillToContents(chunks.map((c) => LeafNode.fromRoot(c)), depth) : zeroNode(depth);
  if (!mixIn) return data;
  const len = Buffer.alloc(32); len.writeUInt32LE(chunks.length);
  return new BranchNode(data, LeafNode.fromRoot(len));
}

for (const [n, limit, mixIn] of [[0, 0, false], [1, 0, false], [2, 0, false], [3, 0, false], [5, 0, false],
  [8, 0, false], [13, 0, false], [100, 0, false], [257, 0, false], [1000, 0, false],
  [3, 16, false], [100, 1024, false], [0, 8, true], [1, 1, true], [5, 8, true], [13, 2 ** 20, true],
  [300, 2 ** 40, true], [7, 0, true]]) {
  const chunks = Array.from({ length: n }, (_, i) => chunk(i));
  const node = build(chunks, limit, mixIn);
  const c = { n, limit, mix_in_length: mixIn, root: hex(node.root) };
  if (!limit && !mixIn && n > 0)
    check(hex(new VectorCompositeType(new ByteVectorType(32), n).hashTreeRoot(chunks)) === c.root, 'vector ' + n);
  if (limit && mixIn)
    check(hex(new ListCompositeType(new ByteVectorType(32), limit).hashTreeRoot(chunks)) === c.root, 'list ' + n);
  if (n > 0) {
    const depth = ceilLog2(limit || n) + (mixIn ? 1 : 0);
    const leafG = (i) => (1n << BigInt(depth)) + BigInt(i);
    const gs = [...new Set([leafG(0), leafG(n - 1), leafG(n >> 1), 2n, 3n])].filter((g) => g > 1n && g < (1n << BigInt(depth + 1)));
    if (depth >= 3) gs.push((1n << BigInt(depth - 2)) + 1n); // an inner node
    c.branches = gs.map((g) => {
      const p = createProof(node, { type: ProofType.single, gindex: g });
      return { gindex: g.toString(), leaf: hex(p.leaf), branch: p.witnesses.map(hex) };
    });
    const sets = [[leafG(0), leafG(n - 1)], [leafG(n >> 1)]];
    if (n >= 5) sets.push([leafG(1), leafG(2), leafG(4), leafG(n - 1)].filter((v, i, a) => a.indexOf(v) === i));
    if (mixIn) sets.push([leafG(0), 3n]);
    c.multiproofs = sets.map((s) => [...new Set(s)]).map((gi) => {
      const p = createProof(node, { type: ProofType.multi, gindices: gi });
      const wg = computeMultiProofBitstrings(p.gindices.map((g) => g.toString(2)), false, 1).map((b) => BigInt('0b' + b));
      check(wg.length === p.witnesses.length, 'witness count');
      const w = wg.map((g, i) => [g, hex(p.witnesses[i])]).sort((a, b) => (a[0] < b[0] ? 1 : -1));
      const leaves = Object.fromEntries(p.gindices.map((g, i) => [g.toString(), hex(p.leaves[i])]));
      return { gindices: gi.map(String), leaves: gi.map((g) => leaves[g.toString()]),
        helpers: w.map((x) => x[0].toString()), proof: w.map((x) => x[1]) };
    });
  }
  out.cases.push(c);
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
