// SPDX-License-Identifier: MIT OR Apache-2.0
/// The @openzeppelin/merkle-tree 1.0 API, as the drop-in implements it.
export type HexString = string;
export type BytesLike = HexString | Uint8Array | ArrayLike<number>;
export interface MultiProof<T, L = T> { leaves: L[]; proof: T[]; proofFlags: boolean[] }
export type NodeHash = (left: BytesLike, right: BytesLike) => HexString;
export interface MerkleTreeOptions { sortLeaves?: boolean }
export interface MerkleTreeData<T> { format: string; tree: HexString[]; values: { value: T; treeIndex: number }[] }
export interface StandardMerkleTreeData<T extends any[]> extends MerkleTreeData<T> { format: 'standard-v1'; leafEncoding: string[] }
export interface SimpleMerkleTreeData extends MerkleTreeData<HexString> { format: 'simple-v1'; hash?: 'custom' }

declare abstract class MerkleTreeImpl<T> {
  readonly root: HexString;
  readonly length: number;
  at(index: number): T | undefined;
  render(): string;
  entries(): Iterable<[number, T]>;
  validate(): void;
  leafHash(leaf: T): HexString;
  leafLookup(leaf: T): number;
  getProof(leaf: number | T): HexString[];
  getMultiProof(leaves: (number | T)[]): MultiProof<HexString, T>;
  verify(leaf: number | T, proof: HexString[]): boolean;
  verifyMultiProof(multiproof: MultiProof<BytesLike, number | T>): boolean;
  abstract dump(): MerkleTreeData<T>;
}

export declare class StandardMerkleTree<T extends any[]> extends MerkleTreeImpl<T> {
  static of<T extends any[]>(values: T[], leafEncoding: string[], options?: MerkleTreeOptions): StandardMerkleTree<T>;
  static load<T extends any[]>(data: StandardMerkleTreeData<T>): StandardMerkleTree<T>;
  static verify<T extends any[]>(root: BytesLike, leafEncoding: string[], leaf: T, proof: BytesLike[]): boolean;
  static verifyMultiProof<T extends any[]>(root: BytesLike, leafEncoding: string[], multiproof: MultiProof<BytesLike, T>): boolean;
  dump(): StandardMerkleTreeData<T>;
}

export interface SimpleMerkleTreeOptions extends MerkleTreeOptions { nodeHash?: NodeHash }
export declare class SimpleMerkleTree extends MerkleTreeImpl<BytesLike> {
  static of(values: BytesLike[], options?: SimpleMerkleTreeOptions): SimpleMerkleTree;
  static load(data: SimpleMerkleTreeData, nodeHash?: NodeHash): SimpleMerkleTree;
  static verify(root: BytesLike, leaf: BytesLike, proof: BytesLike[], nodeHash?: NodeHash): boolean;
  static verifyMultiProof(root: BytesLike, multiproof: MultiProof<BytesLike, BytesLike>, nodeHash?: NodeHash): boolean;
  dump(): SimpleMerkleTreeData;
}

export declare class InvalidArgumentError extends Error {}
export declare class InvariantError extends Error {}
export declare function formatLeaf(value: BytesLike): HexString;
export declare function standardLeafHash<T extends any[]>(types: string[], value: T): HexString;
export declare function standardNodeHash(a: BytesLike, b: BytesLike): HexString;
