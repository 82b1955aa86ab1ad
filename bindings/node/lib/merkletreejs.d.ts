// SPDX-License-Identifier: MIT OR Apache-2.0
/// The merkletreejs MerkleTree subset the drop-in implements.
export interface Options { hashLeaves?: boolean; sortLeaves?: boolean; sortPairs?: boolean; sort?: boolean; duplicateOdd?: boolean; complete?: boolean }
export type Leaf = Buffer | Uint8Array | string | number | bigint;
export interface ProofItem { position: 'left' | 'right'; data: Buffer }
export declare class MerkleTree {
  constructor(leaves: Leaf[], hashFn?: 'sha256' | 'keccak256' | ((data: Buffer) => Buffer | Uint8Array | string), options?: Options);
  getRoot(): Buffer;
  getHexRoot(): string;
  getLeaves(): Buffer[];
  getHexLeaves(): string[];
  getLeafCount(): number;
  getLayers(): Buffer[][];
  getHexLayers(): string[][];
  getDepth(): number;
  getLeafIndex(leaf: Leaf): number;
  getProof(leaf: Leaf, index?: number): ProofItem[];
  getHexProof(leaf: Leaf, index?: number): string[];
  verify(proof: (ProofItem | string | Buffer | [number, Leaf])[], leaf: Leaf, root: Leaf): boolean;
  static verify(proof: (ProofItem | string | Buffer)[], leaf: Leaf, root: Leaf, hashFn?: 'sha256' | 'keccak256' | ((data: Buffer) => Buffer), options?: Options): boolean;
  static bufferToHex(b: Uint8Array, withPrefix?: boolean): string;
}
