// SPDX-License-Identifier: MIT OR Apache-2.0
// A drop-in for @openzeppelin/merkle-tree 1.0.x: StandardMerkleTree and SimpleMerkleTree with
// the same methods, outputs (roots, proofs, multiproofs, dump(), render() text) and errors,
// over libmerkle. The tree is built in one native call (leaf hashes through the multi-lane
// Keccak-256, sort, heap layout); hex strings are made only when asked for.
'use strict';
const native = require('./native');
const abi = require('./abi');

class InvalidArgumentError extends Error {
  constructor(message) { super(message); this.name = 'InvalidArgumentError'; }
}
class InvariantError extends Error {
  constructor(message) { super(message); this.name = 'InvariantError'; }
}
const validateArgument = (c, m) => { if (!c) throw new InvalidArgumentError(m); };
const invariant = (c, m) => { if (!c) throw new InvariantError(m); };

const HEXRE = /^(0x)?([0-9a-fA-F]{2})*$/;
function bytesOf(v) {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') {
    if (!HEXRE.test(v)) throw new Error(`hex string expected, got ${v}`);
    return Buffer.from(v.replace(/^0x/, ''), 'hex');
  }
  return Uint8Array.from(v);
}
const toHex = (v) => (typeof v === 'string' ? (bytesOf(v), v.replace(/^(0x)?/, '0x')) : '0x' + Buffer.from(bytesOf(v)).toString('hex'));
function node32(v) {
  const b = bytesOf(v);
  if (b.length !== 32) throw new Error('Merkle tree nodes must be Uint8Array of length 32');
  return b;
}
const hexOfNode = (buf, i) => '0x' + buf.toString('hex', 32 * i, 32 * i + 32);

// keccak256(sorted(a, b)) over hex or bytes; the default node hash of both trees
function standardNodeHash(a, b) {
  return toHex(native.ozNode(node32(a), node32(b)));
}

class MerkleTreeImpl {
  // tree: Buffer of (2n-1)*32 bytes (native) or an array of hex strings (custom node hash / load)
  constructor(tree, values, leafHash, nodeHash) {
    if (Array.isArray(tree)) {
      this._treeHex = tree.map(toHex);
      this._treeBuf = null;
    } else {
      this._treeBuf = tree;
      this._treeHex = null;
    }
    this._values = values;
    this.leafHash = leafHash;
    this.nodeHash = nodeHash;
    this._lookup = null;
    validateArgument(values.every(({ value }) => typeof value != 'number'), 'Leaf values cannot be numbers');
  }

  static _prepare(hashes, n, sortLeaves, nodeHash) {
    // hashes: Buffer of n leaf hashes. Returns [tree, treeIndex per value].
    validateArgument(n !== 0, 'Expected non-zero number of leaves');
    if (!nodeHash) return native.ozBuild(hashes, sortLeaves);
    const order = Array.from({ length: n }, (_, i) => i);
    if (sortLeaves) order.sort((x, y) => Buffer.compare(hashes.subarray(32 * x, 32 * x + 32), hashes.subarray(32 * y, 32 * y + 32)) || x - y);
    const tree = new Array(2 * n - 1);
    const treeIndex = new Float64Array(n);
    order.forEach((vi, k) => { tree[tree.length - 1 - k] = hexOfNode(hashes, vi); treeIndex[vi] = tree.length - 1 - k; });
    for (let i = tree.length - 1 - n; i >= 0; i--) tree[i] = toHex(nodeHash(tree[2 * i + 1], tree[2 * i + 2]));
    return [tree, treeIndex];
  }

  get tree() {
    if (!this._treeHex) {
      const n = this._treeBuf.length / 32;
      const t = new Array(n);
      for (let i = 0; i < n; i++) t[i] = hexOfNode(this._treeBuf, i);
      this._treeHex = t;
    }
    return this._treeHex;
  }
  _node(i) { return this._treeBuf ? hexOfNode(this._treeBuf, i) : this._treeHex[i]; }
  get _size() { return this._treeBuf ? this._treeBuf.length / 32 : this._treeHex.length; }
  get values() { return this._values; }
  get root() { return this._node(0); }
  get length() { return this._values.length; }
  at(index) { return this._values.at(index)?.value; }
  *entries() { for (const [i, { value }] of this._values.entries()) yield [i, value]; }

  render() {
    validateArgument(this._size !== 0, 'Expected non-zero number of nodes');
    const lines = [];
    // depth-first, left child first; prefix made of the open branches above the node
    const walk = [[0, '', '']];
    while (walk.length) {
      const [i, indent, mark] = walk.pop();
      lines.push(indent + mark + i + ') ' + this._node(i));
      if (2 * i + 2 < this._size) {
        const childIndent = mark === '' ? '' : indent + (mark === '├─ ' ? '│  ' : '   ');
        walk.push([2 * i + 2, childIndent, '└─ ']);
        walk.push([2 * i + 1, childIndent, '├─ ']);
      }
    }
    return lines.join('\n');
  }

  validate() {
    this._values.forEach((_, i) => this._validateValueAt(i));
    let ok;
    if (this.nodeHash) {
      const t = this.tree;
      ok = t.length > 0 && t.every((node, i) => {
        if (bytesOf(node).length !== 32) return false;
        const l = 2 * i + 1, r = 2 * i + 2;
        if (r >= t.length) return l >= t.length;
        return toHex(this.nodeHash(t[l], t[r])).toLowerCase() === node.toLowerCase();
      });
    } else {
      const buf = this._treeBuf || Buffer.concat(this._treeHex.map((h) => {
        const b = bytesOf(h);
        return b.length === 32 ? b : Buffer.alloc(0);
      }));
      ok = buf.length === 32 * this._size && native.ozValidTree(buf);
    }
    invariant(ok, 'Merkle tree is invalid');
  }

  _hashLookup() {
    if (!this._lookup) {
      this._lookup = new Map();
      this._values.forEach(({ treeIndex }, vi) => this._lookup.set(this._node(treeIndex), vi));
    }
    return this._lookup;
  }

  leafLookup(leaf) {
    const v = this._hashLookup().get(this.leafHash(leaf));
    validateArgument(typeof v !== 'undefined', 'Leaf is not in tree');
    return v;
  }

  _isLeaf(i) { return Number.isInteger(i) && i >= 0 && i < this._size && 2 * i + 1 >= this._size; }

  getProof(leaf) {
    const valueIndex = typeof leaf === 'number' ? leaf : this.leafLookup(leaf);
    this._validateValueAt(valueIndex);
    let i = this._values[valueIndex].treeIndex;
    if (!this._isLeaf(i)) throw new Error('Index is not a leaf');
    const proof = [];
    while (i > 0) {
      proof.push(this._node(i % 2 ? i + 1 : i - 1));
      i = Math.floor((i - 1) / 2);
    }
    invariant(this._verify(this._node(this._values[valueIndex].treeIndex), proof), 'Unable to prove value');
    return proof;
  }

  getMultiProof(leaves) {
    const valueIndices = leaves.map((l) => (typeof l === 'number' ? l : this.leafLookup(l)));
    for (const vi of valueIndices) this._validateValueAt(vi);
    const indices = valueIndices.map((vi) => this._values[vi].treeIndex);
    for (const i of indices) if (!this._isLeaf(i)) throw new Error('Index is not a leaf');
    indices.sort((a, b) => b - a);
    validateArgument(indices.slice(1).every((x, p) => x !== indices[p]), 'Cannot prove duplicated index');
    const queue = indices.slice();
    const proof = [];
    const proofFlags = [];
    let head = 0;
    while (head < queue.length && queue[head] > 0) {
      const j = queue[head++];
      const s = j % 2 ? j + 1 : j - 1;
      if (head < queue.length && s === queue[head]) {
        proofFlags.push(true);
        head++;
      } else {
        proofFlags.push(false);
        proof.push(this._node(s));
      }
      queue.push(Math.floor((j - 1) / 2));
    }
    if (indices.length === 0) proof.push(this._node(0));
    const lookup = this._hashLookup();
    const result = {
      leaves: indices.map((i) => this._values[lookup.get(this._node(i))].value),
      proof,
      proofFlags,
    };
    invariant(this._verifyMultiProof({ leaves: indices.map((i) => this._node(i)), proof, proofFlags }), 'Unable to prove values');
    return result;
  }

  verify(leaf, proof) { return this._verify(this._leafHash(leaf), proof); }

  verifyMultiProof(multiproof) {
    return this._verifyMultiProof({
      leaves: multiproof.leaves.map((l) => this._leafHash(l)),
      proof: multiproof.proof,
      proofFlags: multiproof.proofFlags,
    });
  }

  _validateValueAt(index) {
    const value = this._values[index];
    validateArgument(value !== undefined, 'Index out of bounds');
    invariant(this._node(value.treeIndex) === this.leafHash(value.value), 'Merkle tree does not contain the expected value');
  }

  _leafHash(leaf) {
    if (typeof leaf === 'number') {
      const v = this._values[leaf];
      validateArgument(v !== undefined, 'Index out of bounds');
      leaf = v.value;
    }
    return this.leafHash(leaf);
  }

  _verify(leafHash, proof) { return this.root === processProof(leafHash, proof, this.nodeHash); }
  _verifyMultiProof(mp) { return this.root === processMultiProof(mp, this.nodeHash); }
}

function processProof(leaf, proof, nodeHash) {
  const l = node32(leaf);
  const p = proof.map(node32);
  if (!nodeHash) return toHex(native.ozProcessProof(l, p.length ? Buffer.concat(p) : Buffer.alloc(0)));
  return toHex(p.reduce((acc, x) => bytesOf(nodeHash(toHex(acc), toHex(x))), l));
}

function processMultiProof(mp, nodeHash) {
  mp.leaves.forEach(node32);
  mp.proof.forEach(node32);
  validateArgument(mp.proof.length >= mp.proofFlags.filter((b) => !b).length, 'Invalid multiproof format');
  validateArgument(mp.leaves.length + mp.proof.length === mp.proofFlags.length + 1, 'Provided leaves and multiproof are not compatible');
  const hash = nodeHash ? (a, b) => toHex(nodeHash(toHex(a), toHex(b))) : standardNodeHash;
  const stack = mp.leaves.slice();
  const proof = mp.proof.slice();
  for (const flag of mp.proofFlags) {
    const a = stack.shift();
    const b = flag ? stack.shift() : proof.shift();
    invariant(a !== undefined && b !== undefined);
    stack.push(hash(a, b));
  }
  invariant(stack.length + proof.length === 1);
  return toHex(stack.pop() ?? proof.shift());
}

function hashValues(leafEncoding, values) {
  if (values.length === 0) return Buffer.alloc(0);
  const { data, stride, offsets } = abi.encodeRows(leafEncoding, values);
  return native.doubleKeccak(data, stride !== undefined ? stride : offsets);
}

class StandardMerkleTree extends MerkleTreeImpl {
  constructor(tree, values, leafEncoding) {
    super(tree, values, (leaf) => standardLeafHash(leafEncoding, leaf));
    this.leafEncoding = leafEncoding;
  }

  static of(values, leafEncoding, options = {}) {
    const sortLeaves = options.sortLeaves ?? true;
    const hashes = hashValues(leafEncoding, values);
    const [tree, treeIndex] = MerkleTreeImpl._prepare(hashes, values.length, sortLeaves);
    const indexed = values.map((value, i) => ({ value, treeIndex: treeIndex[i] }));
    return new StandardMerkleTree(tree, indexed, leafEncoding);
  }

  static load(data) {
    validateArgument(data.format === 'standard-v1', `Unknown format '${data.format}'`);
    validateArgument(data.leafEncoding !== undefined, 'Expected leaf encoding');
    const t = new StandardMerkleTree(data.tree, data.values, data.leafEncoding);
    t.validate();
    return t;
  }

  static verify(root, leafEncoding, leaf, proof) {
    return toHex(root) === processProof(standardLeafHash(leafEncoding, leaf), proof);
  }

  static verifyMultiProof(root, leafEncoding, multiproof) {
    return toHex(root) === processMultiProof({
      leaves: multiproof.leaves.map((l) => standardLeafHash(leafEncoding, l)),
      proof: multiproof.proof,
      proofFlags: multiproof.proofFlags,
    });
  }

  dump() {
    return { format: 'standard-v1', leafEncoding: this.leafEncoding, tree: this.tree, values: this._values };
  }
}

function standardLeafHash(types, value) {
  const enc = abi.encode(types, value);
  return toHex(native.doubleKeccak(enc, new Float64Array([0, enc.length])));
}

function formatLeaf(value) {
  const b = bytesOf(value);
  if (b.length > 32) throw new RangeError(`Expected a value of at most 32 bytes, got ${b.length}`);
  const out = Buffer.alloc(32);
  Buffer.from(b).copy(out);
  return '0x' + out.toString('hex');
}

class SimpleMerkleTree extends MerkleTreeImpl {
  static of(values, options = {}) {
    const sortLeaves = options.sortLeaves ?? true;
    const hashes = values.length ? Buffer.concat(values.map((v) => Buffer.from(formatLeaf(v).slice(2), 'hex'))) : Buffer.alloc(0);
    const [tree, treeIndex] = MerkleTreeImpl._prepare(hashes, values.length, sortLeaves, options.nodeHash);
    const indexed = values.map((value, i) => ({ value, treeIndex: treeIndex[i] }));
    return new SimpleMerkleTree(tree, indexed, formatLeaf, options.nodeHash);
  }

  static load(data, nodeHash) {
    validateArgument(data.format === 'simple-v1', `Unknown format '${data.format}'`);
    validateArgument((nodeHash == undefined) !== (data.hash == 'custom'),
      nodeHash ? 'Data does not expect a custom node hashing function' : 'Data expects a custom node hashing function');
    const t = new SimpleMerkleTree(data.tree, data.values, formatLeaf, nodeHash);
    t.validate();
    return t;
  }

  static verify(root, leaf, proof, nodeHash) {
    return toHex(root) === processProof(formatLeaf(leaf), proof, nodeHash);
  }

  static verifyMultiProof(root, multiproof, nodeHash) {
    return toHex(root) === processMultiProof(multiproof, nodeHash);
  }

  dump() {
    return {
      format: 'simple-v1',
      tree: this.tree,
      values: this._values.map(({ value, treeIndex }) => ({ value: toHex(value), treeIndex })),
      ...(this.nodeHash ? { hash: 'custom' } : {}),
    };
  }
}

module.exports = {
  StandardMerkleTree,
  SimpleMerkleTree,
  InvalidArgumentError,
  InvariantError,
  formatLeaf,
  standardLeafHash,
  standardNodeHash,
  processProof,
  processMultiProof,
};
