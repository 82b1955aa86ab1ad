// SPDX-License-Identifier: MIT OR Apache-2.0
/// Types of the libmerkle Node.js package (lib/index.js).
import * as openzeppelin from './openzeppelin';
import * as merkletreejs from './merkletreejs';

export type Bytes = Uint8Array;
export type HashName = 'sha256' | 'blake2b-256' | 'blake2b256' | 'keccak256' | 'keccak-256';
export type ProfileName = 'rfc6962' | 'sia' | 'bitcoin' | 'ssz' | 'openzeppelin' | 'bittorrent-v2';

/** Library status names carried by thrown errors as `code`. */
export type MerkleErrorCode =
  | 'MERKLE_ERR_ARG' | 'MERKLE_ERR_BUFFER' | 'MERKLE_ERR_FORMAT' | 'MERKLE_ERR_VERIFY' | 'MERKLE_ERR_IO'
  | 'MERKLE_ERR_NOMEM' | 'MERKLE_ERR_RANGE' | 'MERKLE_ERR_LIMIT' | 'MERKLE_ERR_UNSUPPORTED'
  | 'MERKLE_ERR_STATE' | 'MERKLE_ERR_UNSAFE';

export const HashAlg: { readonly SHA256: 3; readonly BLAKE2B_256: 6; readonly KECCAK256: 7 };
export const Profile: {
  readonly RFC6962: 1; readonly SIA: 2; readonly BITCOIN: 3; readonly SSZ: 4; readonly OPENZEPPELIN: 5; readonly BITTORRENT_V2: 6;
};

/** Version of the linked C library. */
export function version(): string;
/** Digest of data. */
export function hash(alg: HashName | number, data: Bytes): Buffer;
/** Root of a list of byte strings, one leaf each (rfc6962: CometBFT HashFromByteSlices). */
export function rootList(leaves: Bytes[], opts?: { profile?: 'rfc6962' | 'sia'; hash?: HashName }): Buffer;
/** Root of a buffer cut into leafSize leaves (sia: Sia ReaderRoot with 64-byte segments). */
export function rootBytes(data: Bytes, opts?: { profile?: 'rfc6962' | 'sia'; hash?: HashName; leafSize?: number }): Buffer;
/** H(0x00 || data). */
export function leafHash(data: Bytes, alg?: HashName): Buffer;
/** RFC 9162 audit path (bottom-up) of leaf `index`. */
export function inclusionProof(leafHashes: Bytes[] | Buffer, index: number | bigint, alg?: HashName): { path: Buffer[]; root: Buffer };
/** RFC 9162 consistency proof from the first oldSize leaves. */
export function consistencyProof(leafHashes: Bytes[] | Buffer, oldSize: number | bigint, alg?: HashName): { path: Buffer[]; oldRoot: Buffer; newRoot: Buffer };
export function verifyInclusion(root: Bytes, size: number | bigint, index: number | bigint, leafHash: Bytes, path: Bytes[], alg?: HashName): boolean;
export function verifyConsistency(oldRoot: Bytes, newRoot: Bytes, oldSize: number | bigint, newSize: number | bigint, path: Bytes[], alg?: HashName): boolean;

/** CLVM over serialized programs (back references accepted), as clvm_rs names it. */
export const clvm: {
  treeHash(program: Bytes): Buffer;
  nodeToBytes(program: Bytes): Buffer;
  nodeToBytesBackrefs(program: Bytes): Buffer;
};

/** A merkledb-compatible radix trie (branch factor 2, 4, 16 or 256). */
export class Trie {
  constructor(branchFactor?: 2 | 4 | 16 | 256);
  put(key: Bytes, value: Bytes): this;
  get(key: Bytes): Buffer | null;
  delete(key: Bytes): boolean;
  root(): Buffer;
  prove(key: Bytes): Buffer;
  readonly size: number;
  close(): void;
  static verifyProof(root: Bytes, proof: Bytes): { key: Buffer; value: Buffer | null };
  static verifyKey(root: Bytes, proof: Bytes, key: Bytes, value: Bytes | null): boolean;
}

export type ManifestHash = 'auto' | 'md5' | 'sha1' | 'sha256' | 'sha512' | 'blake2b';
export interface ManifestEntry {
  name: string;
  /** The name's bytes (a name need not be UTF-8). */
  rawName: Buffer;
  line: number;
  hash: Exclude<ManifestHash, 'auto'>;
  digest: Buffer;
  binary: boolean;
  bsd: boolean;
}
export interface CheckResult {
  name: string;
  status: 'OK' | 'FAILED' | 'MISSING' | 'ERROR';
  errno: number;
  fromCache: boolean;
  size: number;
  digest?: Buffer;
}
export interface ManifestOptions { hash?: ManifestHash; digestLength?: number }
export const MANIFEST_HASHES: { readonly auto: 0; readonly md5: 1; readonly sha1: 2; readonly sha256: 3; readonly sha512: 4; readonly blake2b: 5 };
/** Parse a checksum manifest (coreutils -c rules); malformed lines are listed, not thrown. */
export function parseManifest(text: string | Uint8Array, opts?: ManifestOptions): { entries: ManifestEntry[]; badLines: number[]; lines: number };
/** Directory root of a manifest; throws on a malformed line or a duplicate name. */
export function dirRoot(text: string | Uint8Array, opts?: ManifestOptions): Buffer;
/** Check the listed files on worker threads, optionally with the validation cache. */
export function checkManifest(text: string | Uint8Array, opts?: ManifestOptions & {
  dir?: string | null; threads?: number; cache?: string | null; cacheKey?: Uint8Array | null;
}): Promise<{ results: CheckResult[]; ok: boolean; cacheSaved: boolean; cacheWarning?: string }>;

export { openzeppelin, merkletreejs };
