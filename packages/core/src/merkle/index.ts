export { leafHash, nodeHash, emptyRoot, isTreeSize } from './hash.js';
export { verifyInclusion, verifyConsistency, rootFromInclusionProof } from './verify.js';
export { inclusionProof, consistencyProof, treeRoot, rangeHash, type TreeReader } from './prove.js';
export { MemoryTree } from './memory.js';
export { planReads, NodeSet, frontier, integrate, type NodeId, type StoredNode, type Integration, type MerkleHasher } from './plan.js';
