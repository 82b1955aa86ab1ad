/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Input side shared by `root`, `proof` and `consistency`: options, and feeding a file (a
** byte stream or a hex leaf list) into a tree consumer.
*/
#ifndef MERKLE_CLI_ROOTIO_H
#define MERKLE_CLI_ROOTIO_H

#include "cli.h"

typedef struct root_opts {
    merkle_profile profile;
    merkle_hash_alg hash;
    size_t leaf_size;
    int leaves;               /* --leaves: hex leaf per line (also set by --leaf-hashes) */
    int leaf_hashes;          /* --leaf-hashes: rfc6962/sia lines are H(0x00 || leaf) */
    const char *hash_name;    /* --hash as given (resolved by root_opts_finish) */
    uint64_t leaf_size_given; /* --leaf-size as given, 0 if not */
    unsigned threads;
    int threads_given; /* -j N with N > 0 (else threads is the core count) */
    int quiet;
    int mpi; /* --mpi: spread the work over the ranks of an MPI job (cli/mpi_*.c) */
    /* Shaped profiles (cli/shaped.c). */
    int have_hash;         /* --hash given */
    int internal_order;    /* bitcoin: hashes in internal byte order, not display order */
    int strict;            /* bitcoin: a mutated transaction list is an error */
    int block;             /* bitcoin: --block, the inputs are raw blocks */
    uint64_t limit;        /* ssz: --limit N (0: none) */
    int mix_in;            /* ssz: --mix-in-length */
    const char *values;    /* openzeppelin: --values TYPES */
    const char *dump;      /* openzeppelin: --dump FILE, write the tree's dump() JSON */
    int load;              /* openzeppelin: --load, the inputs are dump() JSON files */
    int render;            /* openzeppelin: --render, print the tree as render() does */
    uint64_t piece_layer;  /* bittorrent-v2: --piece-layer SIZE (0: print the pieces root) */
    int verity;            /* --profile fsverity / dm-verity: a merkle_verity_format, or 0 */
    uint64_t block_size;   /* verity: --block-size N (0: 4096) */
    const char *salt_hex;  /* verity: --salt HEX */
    const char *hash_tree; /* dm-verity: --hash-tree OUT, the hash device to write */
} root_opts;

typedef struct root_result {
    uint64_t leaf_count;
    uint64_t bytes;
    int is_empty;
    uint32_t shape_flags; /* MERKLE_SHAPE_MUTATED of a bitcoin tree */
} root_result;

/*
** The input options of root, proof and consistency (tables in cli/cmd_root.c; proof and
** consistency add their own tables in front). root_opt_apply takes one option returned by
** cli_opt_next: 0 when applied, 1 when it is not one of these, else the exit status after
** the usage message. root_opts_finish resolves defaults and checks combinations: 0 or the
** exit status after a message.
*/
extern const cli_opt root_input_opts[], root_shape_opts[];
void root_opts_init(root_opts *o);
int root_opt_apply(root_opts *o, const cli_cmd *cmd, int id, const char *arg);
int root_opts_finish(root_opts *o, const cli_cmd *cmd);

/*
** Compute the root of the named input ("-" = stdin). On failure prints a message naming
** the input (and line for --leaves) and returns -1.
*/
int root_compute(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                 root_result *res);

/*
** Read a --leaves input: call fn(ctx, leaf, len) for each line's decoded leaf, in order.
** Returns 0, or -1 after printing "merkle: NAME:LINE: ..." for bad hex or a read error.
** fn returns 0 to continue, non-zero to stop with that failure (it prints its message).
*/
int root_read_leaves(const char *name, int fd,
                     int (*fn)(void *ctx, const uint8_t *leaf, size_t len), void *ctx);

/* rfc6962 or sia: the profiles served by the streaming code above. */
static inline int root_profile_classic(merkle_profile p)
{
    return p == MERKLE_PROFILE_RFC6962 || p == MERKLE_PROFILE_SIA;
}

/*
** Shaped profiles (bitcoin, ssz, openzeppelin, bittorrent-v2), cli/shaped.c.
** shaped_root: the root of one input as it is printed (bitcoin: display order unless
** --internal-order); warns on stderr about a mutated bitcoin tree (res->shape_flags).
** shaped_prove: `merkle proof` for these profiles; idx / gidx are the --index / --gindex
** arguments (comma-separated lists give a multiproof). Return 0 / -1 (message printed) for
** shaped_root, an exit status for shaped_prove.
*/
int shaped_root(const root_opts *o, const char *name, uint8_t root[MERKLE_HASH_LEN],
                root_result *res);
/* bittorrent-v2 --piece-layer: print the piece layer of one input ("<hex>  <name>" per
** piece; nothing for a file not larger than a piece). 0, or -1 after a message. */
int shaped_piece_layer(const root_opts *o, const char *name);
/* `merkle root --profile fsverity|dm-verity` of one input: prints its line (cli/verity_cli.c).
** 0, or -1 after a message. */
int verity_root(const root_opts *o, const char *name);

/* `merkle proof --all` for rfc6962 and sia: every inclusion proof, one JSON line each
** (cli/proof_all.c). Returns the exit status. */
int proof_all(const root_opts *o, const char *name, int cometbft);
int shaped_prove(const root_opts *o, const char *name, const char *idx, const char *gidx,
                 const char *const *vals, size_t nvals, int binary);
/* openzeppelin --render: print the tree of one input as render() of @openzeppelin/merkle-tree
** prints it ("0) 0x<root>", then "├─ 1) ..." lines), one line per node. 0, or -1 after a
** message. */
int shaped_render(const root_opts *o, const char *name);
/* Validate the shaped options against the profile; CLI_USAGE after a message, else 0. */
int shaped_check_opts(const root_opts *o, const char *sub);

/*
** `merkle root --mpi`: run under mpirun; every rank hashes an aligned range of leaves of each
** input and rank 0 prints what `merkle root` prints. Defined in cli/mpi_root.c when built
** with -DMERKLE_MPI=ON; otherwise a stub that reports the missing support (exit 2).
*/
int root_run_mpi(const root_opts *o, const char *const *names, int n);

#endif
