/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle.h: umbrella header of libmerkle.
**
** Layers: digests (hash.h), binary trees (tree.h), proofs (proof.h), structured data
** (trie.h, sexp.h), manifests (manifest.h). See docs/ and the header of each module.
*/
#ifndef MERKLE_H
#define MERKLE_H

#include "merkle/common.h"
#include "merkle/hash.h"
#include "merkle/tree.h"

#if defined(__has_include)
#if __has_include("merkle/proof.h")
#include "merkle/proof.h"
#endif
#if __has_include("merkle/sexp.h")
#include "merkle/sexp.h"
#endif
#if __has_include("merkle/trie.h")
#include "merkle/trie.h"
#endif
#if __has_include("merkle/manifest.h")
#include "merkle/manifest.h"
#endif
#endif

#endif
