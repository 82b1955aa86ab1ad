// SPDX-License-Identifier: MIT OR Apache-2.0
// libmerkle for Node.js: the core API (digests, roots of lists and buffers for every profile,
// RFC 6962 inclusion and consistency proofs, merkledb tries with key proofs, CLVM tree hash
// and serialization, checksum manifests), plus drop-ins for @openzeppelin/merkle-tree (./openzeppelin) and
// merkletreejs (./merkletreejs). Hashes are Buffers of 32 bytes; errors are Error objects
// whose `code` names the library's status (MERKLE_ERR_FORMAT, ...).
'use strict';
const native = require('./native');

const HashAlg = Object.freeze({ SHA256: 3, BLAKE2B_256: 6, KECCAK256: 7 });
const Profile = Object.freeze({ RFC6962: 1, SIA: 2, BITCOIN: 3, SSZ: 4, OPENZEPPELIN: 5, BITTORRENT_V2: 6 });

function algOf(a) {
  if (typeof a === 'number') return a;
  const m = { sha256: 3, 'blake2b-256': 6, blake2b256: 6, keccak256: 7, 'keccak-256': 7 }[a];
  if (!m) throw new TypeError(`unknown hash '${a}'`);
  return m;
}
function profileOf(p) {
  if (typeof p === 'number') return p;
  const m = { rfc6962: 1, sia: 2, bitcoin: 3, ssz: 4, openzeppelin: 5, 'bittorrent-v2': 6 }[p];
  if (!m) throw new TypeError(`unknown profile '${p}'`);
  return m;
}
const concatHashes = (hs) => (Buffer.isBuffer(hs) ? hs : Buffer.concat(hs.map((h) => {
  if (!(h instanceof Uint8Array) || h.length !== 32) throw new RangeError('merkle: a hash must be 32 bytes');
  return h;
})));
const split32 = (b) => Array.from({ length: b.length / 32 }, (_, i) => b.subarray(32 * i, 32 * i + 32));

/** Digest of data (sha256 / blake2b-256 / keccak256). */
const hash = (alg, data) => native.hash(algOf(alg), data);

/** Root of a list of byte strings, one leaf each (rfc6962: CometBFT HashFromByteSlices). */
const rootList = (leaves, { profile = 'rfc6962', hash: alg = profile === 'sia' ? 'blake2b-256' : 'sha256' } = {}) =>
  native.rootList(profileOf(profile), algOf(alg), leaves);

/** Root of a buffer cut into leafSize leaves (sia: 64-byte segments, Sia ReaderRoot). */
function rootBytes(data, { profile = 'rfc6962', hash: alg, leafSize } = {}) {
  const sia = profileOf(profile) === 2;
  return native.rootBytes(profileOf(profile), algOf(alg || (sia ? 'blake2b-256' : 'sha256')), leafSize ?? (sia ? 64 : 4096), data);
}

/** H(0x00 || data). */
const leafHash = (data, alg = 'sha256') => native.leafHash(algOf(alg), data);

/** RFC 9162 audit path of leaf `index` among `leafHashes`: {path: Buffer[], root}. */
function inclusionProof(leafHashes, index, alg = 'sha256') {
  const [path, root] = native.inclusionPath(algOf(alg), concatHashes(leafHashes), index);
  return { path: split32(path), root };
}

/** RFC 9162 consistency proof from the first oldSize leaves: {path, oldRoot, newRoot}. */
function consistencyProof(leafHashes, oldSize, alg = 'sha256') {
  const [path, oldRoot, newRoot] = native.consistencyPath(algOf(alg), concatHashes(leafHashes), oldSize);
  return { path: split32(path), oldRoot, newRoot };
}

/** true when leafHash is leaf `index` of the tree of `size` leaves with `root`. */
const verifyInclusion = (root, size, index, leafHashValue, path, alg = 'sha256') =>
  native.verifyInclusion(algOf(alg), root, size, index, leafHashValue, concatHashes(path));

/** true when the tree (oldSize, oldRoot) is a prefix of (newSize, newRoot). */
const verifyConsistency = (oldRoot, newRoot, oldSize, newSize, path, alg = 'sha256') =>
  native.verifyConsistency(algOf(alg), oldRoot, newRoot, oldSize, newSize, concatHashes(path));

/** CLVM, in the names clvm_rs users know, over serialized programs (back references accepted). */
const clvm = Object.freeze({
  treeHash: (bytes) => native.clvm(0, bytes),
  nodeToBytes: (bytes) => native.clvm(1, bytes),
  nodeToBytesBackrefs: (bytes) => native.clvm(2, bytes),
});

/** A merkledb-compatible trie. close() frees it at once (else the garbage collector does). */
class Trie {
  constructor(branchFactor = 16) { this._h = native.trieNew(branchFactor); }
  put(key, value) { native.trieOp(this._h, 0, key, value); return this; }
  get(key) { return native.trieOp(this._h, 1, key); }
  delete(key) { return native.trieOp(this._h, 2, key); }
  root() { return native.trieOp(this._h, 3); }
  prove(key) { return native.trieOp(this._h, 4, key); }
  get size() { return native.trieOp(this._h, 5); }
  close() { native.trieClose(this._h); }
  /** {key, value|null} a proof states under a trusted root; throws when it does not verify. */
  static verifyProof(root, proof) { return native.trieVerify(root, proof); }
  /** true when `proof` shows `key` with `value` (null: absent) under `root`; false otherwise. */
  static verifyKey(root, proof, key, value) {
    let s;
    try { s = native.trieVerify(root, proof); } catch (e) {
      if (e.code === 'MERKLE_ERR_VERIFY' || e.code === 'MERKLE_ERR_FORMAT') return false;
      throw e;
    }
    if (!Buffer.from(key).equals(s.key)) return false;
    if (value === null || value === undefined) return s.value === null;
    return s.value !== null && Buffer.from(value).equals(s.value);
  }
}

module.exports = {
  version: native.version,
  HashAlg,
  Profile,
  hash,
  rootList,
  rootBytes,
  leafHash,
  inclusionProof,
  consistencyProof,
  verifyInclusion,
  verifyConsistency,
  clvm,
  Trie,
  ...require('./manifest'),
  openzeppelin: require('./openzeppelin'),
  merkletreejs: require('./merkletreejs'),
};
