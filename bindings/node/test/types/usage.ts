// SPDX-License-Identifier: MIT OR Apache-2.0
// Compiled with tsc --noEmit --strict by test/types.test.js: the declarations cover this use.
import * as merkle from '../../lib';
import { StandardMerkleTree } from '../../lib/openzeppelin';

const root: Buffer = merkle.rootList([Buffer.from('a'), Buffer.from('b')], { profile: 'rfc6962', hash: 'sha256' });
const { path, root: r2 } = merkle.inclusionProof([merkle.leafHash(Buffer.from('a'))], 0);
const ok: boolean = merkle.verifyInclusion(r2, 1, 0, merkle.leafHash(Buffer.from('a')), path);
const t = StandardMerkleTree.of([['0x1111111111111111111111111111111111111111', '5']], ['address', 'uint256']);
const proof: string[] = t.getProof(0);
const trie = new merkle.Trie(16);
trie.put(Buffer.from('k'), Buffer.from('v'));
const p = trie.prove(Buffer.from('k'));
const stated = merkle.Trie.verifyProof(trie.root(), p);
const h: Buffer = merkle.clvm.treeHash(Buffer.from([0x80]));
const mt = new merkle.merkletreejs.MerkleTree([Buffer.alloc(32)], 'keccak256', { sortPairs: true });
export const used = [root, ok, proof, stated.value, h, mt.getHexRoot()];

// Checksum manifests.
const parsed = merkle.parseManifest('d41d8cd98f00b204e9800998ecf8427e  a\n', { hash: 'md5' });
const firstName: string = parsed.entries[0].name;
const bad: number[] = parsed.badLines;
const droot: Buffer = merkle.dirRoot(Buffer.from(''), { hash: 'sha256' });
void merkle.checkManifest('', { dir: '.', threads: 2, cache: null }).then((r) => {
  const s: 'OK' | 'FAILED' | 'MISSING' | 'ERROR' = r.results.length ? r.results[0].status : 'OK';
  const ok: boolean = r.ok;
  void s; void ok;
});
void firstName; void bad; void droot;
