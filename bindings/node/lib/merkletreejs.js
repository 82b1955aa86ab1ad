// SPDX-License-Identifier: MIT OR Apache-2.0
// merkletreejs-compatible MerkleTree for its common options: hashLeaves, sortLeaves,
// sortPairs, sort (both), duplicateOdd, complete; hashFn 'sha256', 'keccak256' (hashed by
// libmerkle) or any function (Buffer -> Buffer). Same roots, layers and proofs as
// merkletreejs 0.6 for those options; isBitcoinTree, fillDefaultHash and custom
// concatenators are refused (use the bitcoin profile of the core module).
'use strict';
const native = require('./native');

const ALGS = { sha256: 3, keccak256: 7 };

function bufferify(v) {
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'string') {
    const h = v.replace(/^0x/, '');
    if (/^([0-9a-fA-F]{2})*$/.test(h)) return Buffer.from(h, 'hex');
    return Buffer.from(v, 'utf8');
  }
  if (typeof v === 'bigint' || typeof v === 'number') {
    let h = BigInt(v).toString(16);
    if (h.length % 2) h = '0' + h;
    return Buffer.from(h, 'hex');
  }
  throw new TypeError('merkletreejs: cannot make a Buffer of this value');
}

function hasher(hashFn) {
  if (typeof hashFn === 'string') {
    const alg = ALGS[hashFn];
    if (!alg) throw new TypeError(`unknown hash '${hashFn}' (sha256 or keccak256, or a function)`);
    return (b) => native.hash(alg, b);
  }
  if (typeof hashFn === 'function') return (b) => bufferify(hashFn(b));
  throw new TypeError('hashFn must be a function or "sha256" / "keccak256"');
}

class MerkleTree {
  constructor(leaves, hashFn = 'sha256', options = {}) {
    for (const o of ['isBitcoinTree', 'fillDefaultHash', 'concatenator', 'hashFn'])
      if (options[o]) throw new TypeError(`merkletreejs option '${o}' is not supported by this drop-in`);
    this.hashFn = hasher(hashFn);
    this._alg = typeof hashFn === 'string' ? ALGS[hashFn] : 0;  // layers in one native call
    this.hashLeaves = !!options.hashLeaves;
    this.sortLeaves = !!(options.sortLeaves || options.sort);
    this.sortPairs = !!(options.sortPairs || options.sort);
    this.duplicateOdd = !!options.duplicateOdd;
    this.complete = !!options.complete;
    if (this.complete && this.duplicateOdd) throw new Error('option "complete" is incompatible with "duplicateOdd"');
    this.leaves = leaves.map((l) => (this.hashLeaves ? this.hashFn(bufferify(l)) : bufferify(l)));
    if (this.sortLeaves) this.leaves = this.leaves.slice().sort(Buffer.compare);
    this._build();
  }

  _build() {
    let nodes = this.leaves;
    this.layers = [nodes];
    while (nodes.length > 1) {
      const first = this.layers.length === 1;
      const limit = this.complete && first && !Number.isInteger(Math.log2(nodes.length))
        ? 2 * nodes.length - 2 ** Math.ceil(Math.log2(nodes.length)) : nodes.length;
      // limit is even, or nodes.length: the nodes before it hash in pairs, an odd last one
      // goes up alone (or paired with itself: duplicateOdd), the ones after limit go up as
      // they are.
      const paired = limit - (limit % 2);
      let next;
      const pairs = nodes.slice(0, paired);
      if (this._alg && pairs.every((b) => b.length === 32)) {
        const h = native.hashPairs(this._alg, Buffer.concat(pairs), this.sortPairs);
        next = new Array(paired / 2);
        for (let i = 0; i < next.length; i++) next[i] = h.subarray(32 * i, 32 * i + 32);
      } else {
        next = [];
        for (let i = 0; i < paired; i += 2) {
          const left = nodes[i], right = nodes[i + 1];
          const pair = this.sortPairs && Buffer.compare(left, right) > 0 ? [right, left] : [left, right];
          next.push(this.hashFn(Buffer.concat(pair)));
        }
      }
      if (paired < limit) {
        const last = nodes[paired];
        next.push(this.duplicateOdd ? this.hashFn(Buffer.concat([last, last])) : last);
      }
      for (let i = limit; i < nodes.length; i++) next.push(nodes[i]);
      this.layers.push(next);
      nodes = next;
    }
  }

  getRoot() { const top = this.layers[this.layers.length - 1]; return top[0] || Buffer.alloc(0); }
  getHexRoot() { return MerkleTree.bufferToHex(this.getRoot()); }
  getLeaves() { return this.leaves; }
  getHexLeaves() { return this.leaves.map((b) => MerkleTree.bufferToHex(b)); }
  getLeafCount() { return this.leaves.length; }
  getLayers() { return this.layers; }
  getHexLayers() { return this.layers.map((l) => l.map((b) => MerkleTree.bufferToHex(b))); }
  getDepth() { return this.layers.length - 1; }

  getLeafIndex(leaf) {
    const b = bufferify(leaf);
    for (let i = 0; i < this.leaves.length; i++) if (b.equals(this.leaves[i])) return i;
    return -1;
  }

  getProof(leaf, index) {
    if (typeof leaf === 'undefined') throw new Error('leaf is required');
    const b = bufferify(leaf);
    if (!Number.isInteger(index)) {
      index = -1;
      for (let i = 0; i < this.leaves.length; i++) if (b.equals(this.leaves[i])) index = i; // the last match, as merkletreejs
    }
    if (index <= -1) return [];
    const proof = [];
    for (const layer of this.layers) {
      const right = index % 2;
      const pair = right ? index - 1 : index + 1;
      if (pair < layer.length) proof.push({ position: right ? 'left' : 'right', data: layer[pair] });
      index = (index / 2) | 0;
    }
    return proof;
  }

  getHexProof(leaf, index) { return this.getProof(leaf, index).map((p) => MerkleTree.bufferToHex(p.data)); }

  verify(proof, targetNode, root) {
    let hash = bufferify(targetNode);
    const r = bufferify(root);
    if (!Array.isArray(proof) || !targetNode || !root) return false;
    for (const node of proof) {
      let data, isLeft;
      if (typeof node === 'string' || Buffer.isBuffer(node)) { data = bufferify(node); isLeft = true; }
      else if (Array.isArray(node)) { isLeft = node[0] === 0; data = bufferify(node[1]); }
      else if (node instanceof Object) { data = bufferify(node.data); isLeft = node.position === 'left'; }
      else throw new Error('Expected node to be of type string or object');
      if (this.sortPairs) hash = this.hashFn(Buffer.compare(hash, data) === -1 ? Buffer.concat([hash, data]) : Buffer.concat([data, hash]));
      else hash = this.hashFn(isLeft ? Buffer.concat([data, hash]) : Buffer.concat([hash, data]));
    }
    return hash.equals(r);
  }

  static verify(proof, leaf, root, hashFn = 'sha256', options = {}) {
    return new MerkleTree([], hashFn, options).verify(proof, leaf, root);
  }

  static bufferToHex(b, withPrefix = true) { return (withPrefix ? '0x' : '') + Buffer.from(b).toString('hex'); }
}

module.exports = { MerkleTree };
