/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle proof --index I | --range START:END [root options] [--binary] [FILE]
** merkle consistency --old-size M [root options] [--binary] [FILE]
** merkle verify PROOF [--root HEX] [--old-root HEX] [--leaf FILE | --leaf-hex HEX | --leaf-hash
** HEX]
**
** proof/consistency read their input exactly like `merkle root` (same options, via rootio)
** and feed it once through the library's streaming prover: O(log n) memory whatever the
** input size. verify accepts the JSON or the binary encoding.
*/
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

#define READ_CHUNK     (1u << 20)
#define MAX_PROOF_FILE (64u << 20)

typedef unsigned long long ull;

/* ------------------------------------------------------------------ options */

static const cli_opt proof_opts[] = {
    { OPT_INDEX, "index", "I", NULL,
      "prove leaf I (0-based); with the bitcoin, ssz, openzeppelin and bittorrent-v2 profiles "
      "a comma-separated list I,I... gives a multiproof",
      NULL },
    { OPT_RANGE, "range", "START:END", NULL,
      "prove the leaves [START, END) (a Sia range proof: the subtree roots left to right)", NULL },
    { OPT_ALL, "all", NULL, NULL,
      "rfc6962, sia: prove every leaf, one JSON proof per line from leaf 0 on (each the proof "
      "--index I prints); the input and its tree are held in memory",
      "The tree is built once with every level kept and all audit paths come from one walk "
      "over it, instead of one pass over the input per leaf. An empty input prints nothing." },
    { OPT_GINDEX, "gindex", "G", NULL,
      "ssz, bittorrent-v2: prove the node at generalized index G (a comma-separated list "
      "gives a multiproof)",
      NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt consistency_opts[] = {
    { OPT_OLD_SIZE, "old-size", "M", NULL,
      "the size of the older tree (0 < M <= the number of leaves)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt proof_out_opts[] = {
    { OPT_BINARY, "binary", NULL, NULL,
      "write the binary proof encoding (\"MRKP\", version 1) instead of JSON", NULL },
    CLI_OPT_END_ROW,
};

#define PROOF_EPILOG                                                                               \
    "With no FILE, or when FILE is -, read standard input. The input is read once, in\n"           \
    "constant memory. An inclusion proof for a regular file of 8 MiB or more with -j N > 1\n"      \
    "hashes the two halves of the tree at once.\n"                                                 \
    "Exit status: 0 success, 1 the input cannot be read or is too short for the\n"                 \
    "requested proof, 2 usage error.\n"

const cli_cmd proof_spec = {
    "proof",
    NULL,
    "Usage: merkle proof --index I [OPTIONS] [FILE]\n"
    "       merkle proof --range START:END [OPTIONS] [FILE]\n"
    "       merkle proof --all [OPTIONS] [FILE]\n"
    "       merkle proof --profile bitcoin|ssz|openzeppelin --leaves --index I[,I...] [FILE]\n"
    "       merkle proof --profile ssz --leaves --gindex G[,G...] [FILE]\n"
    "       merkle proof --profile bittorrent-v2 (--index B | --gindex G)[,...] FILE\n"
    "Print a proof for leaf I (audit path, bottom-up) or for the leaves [START, END)\n"
    "(Sia range proof: subtree roots left to right) of the tree of FILE, as JSON.\n"
    "bitcoin: the SPV merkle branch of transaction I (hashes in display order);\n"
    "ssz: the branch of a generalized index, or a multiproof for several;\n"
    "openzeppelin: getProof of leaf I, or getMultiProof (leaves, proof, proofFlags);\n"
    "bittorrent-v2: the branch of 16 KiB block B (or any node) of FILE's tree.\n"
    "The input is read as merkle root reads it (the same options).\n",
    { proof_opts, proof_out_opts, root_input_opts, root_shape_opts },
    PROOF_EPILOG,
    0,
};

const cli_cmd consistency_spec = {
    "consistency",
    NULL,
    "Usage: merkle consistency --old-size M [OPTIONS] [FILE]\n"
    "Print the RFC 9162 consistency proof that the tree of the first M leaves of FILE\n"
    "is a prefix of the tree of all its leaves, as JSON (old_size, new_size, old_root,\n"
    "new_root, path). The input is read as merkle root reads it (the same options).\n",
    { consistency_opts, proof_out_opts, root_input_opts, root_shape_opts },
    PROOF_EPILOG,
    0,
};

static const cli_opt verify_opts[] = {
    { OPT_ROOT, "root", "HEX", NULL,
      "the trusted root (the new root of a consistency proof); default: the root stored in "
      "the proof (which checks only that the proof is coherent)",
      NULL },
    { OPT_OLD_ROOT, "old-root", "HEX", NULL,
      "the trusted old root of a consistency proof (default: the stored one)", NULL },
    { OPT_LEAF, "leaf", "FILE", CLI_VALUES_FILE,
      "the leaf's raw bytes (for a range proof: the bytes of the leaves of the range, or for "
      "a --leaves proof one hex leaf per line)",
      NULL },
    { OPT_LEAF_HEX, "leaf-hex", "HEX", NULL, "the leaf's raw bytes in hex", NULL },
    { OPT_LEAF_HASH, "leaf-hash", "HEX", NULL, "the leaf hash H(0x00 || leaf)", NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

const cli_cmd verify_spec = {
    "verify",
    NULL,
    "Usage: merkle verify PROOF [--root HEX] [--leaf FILE | --leaf-hex HEX | --leaf-hash HEX]\n"
    "Verify a proof written by merkle proof / merkle consistency (JSON or --binary).\n"
    "PROOF - reads standard input.\n",
    { verify_opts },
    "Without a leaf option the leaf stored in the proof (\"leaf\", else \"leaf_hash\")\n"
    "is used.\n"
    "Prints OK (exit 0) or FAILED: <reason> (exit 1); exit 2 for a malformed proof file\n"
    "or a usage error.\n",
    0,
};

/* ------------------------------------------------------------------ proof / consistency */

typedef struct proof_job {
    merkle_prover *prover;
    int single; /* capture the raw bytes of one leaf */
    uint64_t index;
    uint64_t seen; /* leaves pushed (list mode) */
    uint8_t *leaf; /* captured leaf bytes */
    size_t leaf_len, leaf_cap;
} proof_job;

static int push_leaf_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    proof_job *j = (proof_job *)ctx;
    if (j->single && j->seen == j->index) {
        j->leaf = malloc(len ? len : 1);
        if (!j->leaf) {
            cli_error("out of memory");
            return -1;
        }
        if (len) memcpy(j->leaf, leaf, len);
        j->leaf_len = len;
    }
    j->seen++;
    merkle_status s = merkle_prover_push_leaf(j->prover, leaf, len);
    if (s != MERKLE_OK) {
        cli_error("%s", merkle_strerror(s));
        return -1;
    }
    return 0;
}

/* The options of proof and consistency beyond root's input options. */
typedef struct own_opts {
    const char *index, *range, *old_size, *gindex;
    int binary, all;
} own_opts;

/* Parse proof's or consistency's options: 0 with *name the input, -1 after --help, else the
** exit status after a usage message. */
static int proof_parse(int argc, char **argv, const cli_cmd *cmd, own_opts *own, root_opts *o,
                       const char **name)
{
    memset(own, 0, sizeof *own);
    root_opts_init(o);
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c, rc;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case OPT_INDEX: own->index = arg; break;
        case OPT_RANGE: own->range = arg; break;
        case OPT_OLD_SIZE: own->old_size = arg; break;
        case OPT_GINDEX: own->gindex = arg; break;
        case OPT_BINARY: own->binary = 1; break;
        case OPT_ALL: own->all = 1; break;
        default:
            if ((rc = root_opt_apply(o, cmd, c, arg)) != 0) return rc;
        }
    }
    if ((rc = root_opts_finish(o, cmd)) != 0) return rc;
    *name = optind < argc ? argv[optind] : "-";
    if (optind + 1 < argc) return cli_cmd_usage(cmd, "only one input FILE is allowed");
    return 0;
}

/* The kind of classic proof and its numbers (--index, --range, --old-size): 0, or the exit
** status after a usage message. */
static int proof_kind_args(const cli_cmd *cmd, const own_opts *own, int consistency,
                           merkle_proof_kind *kind, uint64_t *a, uint64_t *b)
{
    *a = *b = 0;
    if (consistency) {
        if (!own->old_size) return cli_cmd_usage(cmd, "--old-size M is required");
        if (cli_parse_u64(own->old_size, a) != 0)
            return cli_cmd_usage(cmd, "--old-size needs a non-negative integer, got '%s'",
                                 own->old_size);
        if (*a == 0)
            return cli_cmd_usage(
                cmd, "--old-size 0: a consistency proof from an empty tree is meaningless");
        *kind = MERKLE_PROOF_CONSISTENCY;
        return 0;
    }
    if (!own->index == !own->range)
        return cli_cmd_usage(cmd, "give exactly one of --index I or --range START:END");
    if (own->index) {
        if (cli_parse_u64(own->index, a) != 0 || *a == UINT64_MAX)
            return cli_cmd_usage(cmd, "--index needs a non-negative integer, got '%s'", own->index);
        *kind = MERKLE_PROOF_INCLUSION;
        return 0;
    }
    const char *colon = strchr(own->range, ':');
    char left[32];
    size_t ll = colon ? (size_t)(colon - own->range) : 0;
    if (!colon || ll == 0 || ll >= sizeof left)
        return cli_cmd_usage(cmd, "--range needs START:END, got '%s'", own->range);
    memcpy(left, own->range, ll);
    left[ll] = 0;
    if (cli_parse_u64(left, a) != 0 || cli_parse_u64(colon + 1, b) != 0)
        return cli_cmd_usage(cmd, "--range needs START:END, got '%s'", own->range);
    if (*a >= *b)
        return cli_cmd_usage(cmd, "--range %s is empty: START must be less than END", own->range);
    *kind = MERKLE_PROOF_RANGE;
    return 0;
}

static int write_all(const void *buf, size_t len)
{
    if (len && fwrite(buf, 1, len, stdout) != len) return -1;
    if (fflush(stdout) != 0 || ferror(stdout)) return -1;
    return 0;
}

/* ------------------------------------------------------------------ two-thread inclusion */

/* read_at over a file descriptor (pread); the first errno is kept for the message. */
typedef struct fd_reader {
    int fd;
    _Atomic int err;
} fd_reader;

static merkle_status fd_read_at(void *ctx, void *buf, size_t len, uint64_t offset)
{
    fd_reader *r = ctx;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(r->fd, (uint8_t *)buf + got, len - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int expected = 0;
            atomic_compare_exchange_strong(&r->err, &expected, n < 0 ? errno : EIO);
            return MERKLE_ERR_IO;
        }
        got += (size_t)n;
    }
    return MERKLE_OK;
}

/* Inclusion proof for leaf i of a regular file of `size` bytes with two threads
** (merkle_proof_inclusion_parallel). 0 on success (pr filled), -1 after a message. */
static int prove_split(const root_opts *o, const char *name, int fd, uint64_t size, uint64_t i,
                       merkle_proof *pr)
{
    fd_reader rd = { fd, 0 };
    merkle_status s = merkle_proof_inclusion_parallel(pr, o->profile, o->hash, o->leaf_size, size,
                                                      i, fd_read_at, &rd, 2, NULL);
    if (s == MERKLE_OK) return 0;
    int e = atomic_load(&rd.err);
    if (s == MERKLE_ERR_IO && e)
        cli_error("%s: %s", name, strerror(e));
    else
        cli_error("%s: proof failed", name);
    return -1;
}

/* The two-thread inclusion proof of leaf a of a regular file of fsize bytes into pr, and a
** copy of the leaf's bytes into job: 0, or -1 after a message. */
static int prove_file_split(const root_opts *o, const char *name, int fd, uint64_t fsize,
                            uint64_t a, merkle_proof *pr, proof_job *job)
{
    int rc = prove_split(o, name, fd, fsize, a, pr);
    if (rc == 0) {
        uint64_t lo = a * o->leaf_size;
        size_t len = fsize - lo < o->leaf_size ? (size_t)(fsize - lo) : o->leaf_size;
        job->leaf = malloc(len ? len : 1);
        size_t got = 0;
        while (job->leaf && got < len) {
            ssize_t r = pread(fd, job->leaf + got, len - got, (off_t)(lo + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (!job->leaf || got != len) {
            cli_error("%s: cannot read leaf %llu", name, (ull)a);
            rc = -1;
        }
        job->leaf_len = len;
    }
    return rc;
}

/* Stream the input through the prover, keeping a copy of leaf a's bytes as they pass by
** (inclusion proofs): 0, or -1 after a message. */
static int prove_stream(const root_opts *o, const char *name, int fd, const struct stat *st,
                        merkle_prover *pv, proof_job *job, uint64_t a)
{
    int rc = 0;
    merkle_status s;
    /* Stream: large reads, and a copy of the one leaf's bytes as they pass by. */
    uint64_t lo = 0, hi = 0;
    if (job->single) {
        if (a > UINT64_MAX / o->leaf_size) {
            lo = hi = UINT64_MAX;
        } else {
            lo = a * o->leaf_size;
            hi = lo + o->leaf_size < lo ? UINT64_MAX : lo + o->leaf_size;
        }
    }
    uint8_t *buf = malloc(READ_CHUNK);
    if (!buf) {
        cli_error("out of memory");
        rc = -1;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (S_ISREG(st->st_mode)) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    cli_progress prog;
    cli_progress_start(&prog, o->quiet, S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0, 0);
    uint64_t off = 0;
    while (rc == 0) {
        size_t used = 0;
        int eof = 0;
        while (used < READ_CHUNK) {
            ssize_t got = read(fd, buf + used, READ_CHUNK - used);
            if (got < 0) {
                if (errno == EINTR) continue;
                cli_error("%s: %s", name, strerror(errno));
                rc = -1;
                break;
            }
            if (got == 0) {
                eof = 1;
                break;
            }
            used += (size_t)got;
        }
        if (rc) break;
        if (job->single && used && off < hi && off + used > lo) {
            if (!job->leaf) {
                job->leaf = malloc(o->leaf_size);
                if (!job->leaf) {
                    cli_error("out of memory for a leaf of %zu bytes", o->leaf_size);
                    rc = -1;
                    break;
                }
            }
            uint64_t from = off > lo ? off : lo, to = off + used < hi ? off + used : hi;
            memcpy(job->leaf + (from - lo), buf + (from - off), (size_t)(to - from));
            job->leaf_len = (size_t)(to - lo);
        }
        s = merkle_prover_write(pv, buf, used);
        if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
            break;
        }
        off += used;
        cli_progress_update(&prog, off, 0);
        if (eof) break;
    }
    cli_progress_end(&prog);
    free(buf);
    return rc;
}

/* Write the finished proof (with the leaf's bytes of an inclusion proof) as JSON or binary:
** the exit status. */
static int write_proof(merkle_proof *pr, const proof_job *job, int leaves, int binary)
{
    int status = CLI_OK;
    merkle_status s;
    if (leaves) pr->leaf_size = 0;
    const uint8_t *leaf = job->single ? (job->leaf ? job->leaf : (const uint8_t *)"") : NULL;
    size_t leaf_len = job->single ? job->leaf_len : 0;
    if (leaf_len > MERKLE_PROOF_MAX_LEAF && binary) leaf = NULL, leaf_len = 0;
    size_t need = 0;
    if (binary)
        (void)merkle_proof_encode(NULL, 0, &need, pr, leaf, leaf_len);
    else
        (void)merkle_proof_to_json(NULL, 0, &need, pr, leaf, leaf_len);
    char *out = malloc(need ? need : 1);
    if (!out) {
        cli_error("out of memory");
        status = CLI_FAIL;
    } else {
        size_t got;
        s = binary ? merkle_proof_encode((uint8_t *)out, need, &got, pr, leaf, leaf_len)
                   : merkle_proof_to_json(out, need, &got, pr, leaf, leaf_len);
        if (s != MERKLE_OK) {
            cli_error("%s", merkle_strerror(s));
            status = CLI_FAIL;
        } else if (write_all(out, binary ? got : got - 1) != 0) {
            cli_error("write error: %s", strerror(errno));
            status = CLI_FAIL;
        }
        free(out);
    }
    return status;
}

static int run_prove(int argc, char **argv, const cli_cmd *cmd, int consistency)
{
    own_opts own;
    root_opts o;
    const char *name = "-";
    int rc = proof_parse(argc, argv, cmd, &own, &o, &name);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (o.mpi) return cli_cmd_usage(cmd, "--mpi is not supported for proofs");
    if (o.verity) return cli_cmd_usage(cmd, "the verity profiles have no proofs here");
    if (own.all) {
        if (own.index || own.range || own.gindex)
            return cli_cmd_usage(cmd, "--all proves every leaf: no --index, --range or --gindex");
        if (own.binary) return cli_cmd_usage(cmd, "--all writes JSON lines; --binary is one proof");
        if (!root_profile_classic(o.profile))
            return cli_cmd_usage(cmd, "--all belongs to the rfc6962 and sia profiles");
        return proof_all(&o, name);
    }
    if (!root_profile_classic(o.profile)) {
        if (consistency || own.range)
            return cli_cmd_usage(cmd, "the %s profile has inclusion proofs and multiproofs only",
                                 merkle_profile_name(o.profile));
        return shaped_prove(&o, name, own.index, own.gindex, own.binary);
    }
    if (own.gindex) return cli_cmd_usage(cmd, "--gindex belongs to the ssz profile");

    merkle_proof_kind kind = MERKLE_PROOF_INCLUSION;
    uint64_t a, b;
    if ((rc = proof_kind_args(cmd, &own, consistency, &kind, &a, &b)) != 0) return rc;

    merkle_prover *pv = malloc(sizeof *pv);
    if (!pv) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    merkle_status s = merkle_prover_init(pv, kind, o.hash, o.leaf_size, a, b);
    if (s != MERKLE_OK) {
        free(pv);
        return cli_cmd_usage(cmd, "%s", merkle_strerror(s));
    }
    proof_job job;
    memset(&job, 0, sizeof job);
    job.prover = pv;
    job.single = kind == MERKLE_PROOF_INCLUSION;
    job.index = a;

    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        free(pv);
        return CLI_FAIL;
    }
    struct stat st;
    int split_done = 0;
    merkle_proof *pr = malloc(sizeof *pr);
    int have_st = fstat(fd, &st) == 0;
    uint64_t fsize = have_st && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    uint64_t nleaves = fsize ? (fsize + o.leaf_size - 1) / o.leaf_size : 0;
    if (have_st && S_ISDIR(st.st_mode)) {
        cli_error("%s: %s", name, strerror(EISDIR));
        rc = -1;
    } else if (o.leaves) {
        rc = root_read_leaves(name, fd, push_leaf_cb, &job);
    } else if (pr && kind == MERKLE_PROOF_INCLUSION && o.threads > 1 && fsize >= (8u << 20) &&
               nleaves >= 2 && a < nleaves) {
        /* A regular file: two threads, one per half of the tree. */
        rc = prove_file_split(&o, name, fd, fsize, a, pr, &job);
        split_done = rc == 0;
    } else {
        rc = prove_stream(&o, name, fd, &st, pv, &job, a);
    }
    if (fd != STDIN_FILENO) close(fd);

    int status = CLI_OK;
    if (rc != 0 || !pr) {
        if (!pr) cli_error("out of memory");
        status = CLI_FAIL;
    } else {
        uint64_t n = merkle_prover_leaf_count(pv);
        s = split_done ? MERKLE_OK : merkle_prover_finish(pr, pv, o.profile);
        if (s == MERKLE_ERR_RANGE) {
            if (kind == MERKLE_PROOF_INCLUSION)
                cli_error("%s: leaf index %llu is out of range: the input has %llu leaves", name,
                          (ull)a, (ull)n);
            else if (kind == MERKLE_PROOF_RANGE)
                cli_error("%s: range %llu:%llu is out of range: the input has %llu leaves", name,
                          (ull)a, (ull)b, (ull)n);
            else
                cli_error("%s: old size %llu is larger than the tree: the input has %llu leaves",
                          name, (ull)a, (ull)n);
            status = CLI_FAIL;
        } else if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            status = CLI_FAIL;
        } else {
            status = write_proof(pr, &job, o.leaves, own.binary);
        }
    }
    free(pr);
    free(job.leaf);
    free(pv);
    return status;
}

int cmd_proof(int argc, char **argv)
{
    return run_prove(argc, argv, &proof_spec, 0);
}

int cmd_consistency(int argc, char **argv)
{
    return run_prove(argc, argv, &consistency_spec, 1);
}

/* ------------------------------------------------------------------ verify */

/* Read a whole file ("-" = stdin) of at most max bytes. NULL after a message. */
static uint8_t *slurp(const char *name, size_t max, size_t *len)
{
    char *buf;
    int e = cli_read_file(name, max, &buf, len);
    if (e) {
        cli_read_error(NULL, name, e, max);
        return NULL;
    }
    return (uint8_t *)buf;
}

static int verify_failed(const char *fmt, const char *detail)
{
    printf("FAILED: ");
    printf(fmt, detail);
    printf("\n");
    fflush(stdout);
    return CLI_FAIL;
}

/* Decode a hex option into a 32-byte hash: 0 ok, 1 wrong length (FAILED), -1 bad hex. */
static int hex_hash(const char *hex, uint8_t out[MERKLE_HASH_LEN], size_t *got)
{
    size_t hl = strlen(hex);
    uint8_t *tmp = malloc(hl / 2 + 1);
    if (!tmp) return -1;
    size_t n = 0;
    merkle_status s = merkle_hex_decode(tmp, hl / 2 + 1, &n, hex, hl, NULL);
    *got = n;
    if (s == MERKLE_OK && n == MERKLE_HASH_LEN) memcpy(out, tmp, MERKLE_HASH_LEN);
    free(tmp);
    if (s != MERKLE_OK) return -1;
    return n == MERKLE_HASH_LEN ? 0 : 1;
}

typedef struct hash_list {
    merkle_hash_alg alg;
    uint8_t (*h)[MERKLE_HASH_LEN];
    size_t n, cap;
    uint64_t limit;
    uint64_t extra; /* leaves beyond limit: counted, not kept */
} hash_list;

static int hl_add(hash_list *l, const uint8_t *leaf, size_t len)
{
    if (l->n >= l->limit) {
        l->extra++;
        return 0;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        uint8_t(*nh)[MERKLE_HASH_LEN] = realloc(l->h, nc * MERKLE_HASH_LEN);
        if (!nh) {
            cli_error("out of memory");
            return -1;
        }
        l->h = nh;
        l->cap = nc;
    }
    merkle_status s = merkle_tree_leaf_hash(l->h[l->n++], l->alg, leaf, len);
    if (s != MERKLE_OK) {
        cli_error("%s", merkle_strerror(s));
        return -1;
    }
    return 0;
}

static int hl_add_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    return hl_add((hash_list *)ctx, leaf, len);
}

static void reverse32(uint8_t *b)
{
    for (int i = 0; i < MERKLE_HASH_LEN / 2; i++) {
        uint8_t t = b[i];
        b[i] = b[MERKLE_HASH_LEN - 1 - i];
        b[MERKLE_HASH_LEN - 1 - i] = t;
    }
}

/* The leaf hash of raw leaf bytes under the proof's profile: H(0x00 || leaf) for rfc6962
** and sia, the txid SHA-256d(tx) for bitcoin, the chunk itself for ssz. 0, or -1. */
static int leaf_hash_of(uint8_t out[MERKLE_HASH_LEN], const merkle_proof *p, const uint8_t *d,
                        size_t n)
{
    switch (p->profile) {
    case MERKLE_PROFILE_BITCOIN:
        merkle_sha256_hash(out, d, n);
        merkle_sha256_hash(out, out, MERKLE_HASH_LEN);
        return 0;
    case MERKLE_PROFILE_BITTORRENT_V2: /* the raw 16 KiB block */
        merkle_sha256_hash(out, d, n);
        return 0;
    case MERKLE_PROFILE_SSZ:
    case MERKLE_PROFILE_OPENZEPPELIN:
        if (n != MERKLE_HASH_LEN) return -1;
        memcpy(out, d, MERKLE_HASH_LEN);
        return 0;
    default: return merkle_tree_leaf_hash(out, p->hash, d, n) == MERKLE_OK ? 0 : -1;
    }
}

static int verify_multiproof(const char *pname, const char *text, size_t len, const uint8_t *root,
                             int leaf_opts)
{
    if (leaf_opts)
        return cli_cmd_usage(&verify_spec, "a multiproof carries its leaves: only --root applies");
    merkle_multiproof *m = NULL;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s = merkle_multiproof_alloc_json(&m, text, len, &err);
    if (s == MERKLE_ERR_VERIFY) return verify_failed("%s", err.message);
    if (s != MERKLE_OK) {
        cli_error("%s: malformed proof: %s", pname,
                  err.message[0] ? err.message : merkle_strerror(s));
        return CLI_USAGE;
    }
    s = merkle_multiproof_verify(m, root, &err);
    merkle_multiproof_free(m);
    if (s == MERKLE_ERR_ARG && !root)
        return cli_cmd_usage(&verify_spec, "the proof has no root: give --root HEX");
    if (s != MERKLE_OK)
        return verify_failed("%s", err.message[0] ? err.message : merkle_strerror(s));
    printf("OK\n");
    if (!root)
        fprintf(stderr, "merkle verify: note: checked against the root stored in the proof; "
                        "pass --root to check against a trusted root\n");
    return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
}

/* verify's options and what they decode to. */
typedef struct verify_args {
    const char *root_hex, *old_root_hex, *leaf_file, *leaf_hex, *leaf_hash_hex, *pname;
    uint8_t root[MERKLE_HASH_LEN], old_root[MERKLE_HASH_LEN], leaf_hash[MERKLE_HASH_LEN];
    uint8_t *leaf_data; /* --leaf-hex, or --leaf's bytes once read */
    size_t leaf_data_len;
} verify_args;

/* Options and operand: 0, -1 after --help, else the exit status after a usage message. */
static int verify_parse(int argc, char **argv, verify_args *va)
{
    const cli_cmd *cmd = &verify_spec;
    memset(va, 0, sizeof *va);
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    const char *arg;
    int c;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return -1;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case OPT_ROOT: va->root_hex = arg; break;
        case OPT_OLD_ROOT: va->old_root_hex = arg; break;
        case OPT_LEAF: va->leaf_file = arg; break;
        case OPT_LEAF_HEX: va->leaf_hex = arg; break;
        case OPT_LEAF_HASH: va->leaf_hash_hex = arg; break;
        default: break;
        }
    }
    if (optind >= argc) return cli_cmd_usage(cmd, "missing PROOF file");
    if (optind + 1 < argc) return cli_cmd_usage(cmd, "only one PROOF file is allowed");
    if (!!va->leaf_file + !!va->leaf_hex + !!va->leaf_hash_hex > 1)
        return cli_cmd_usage(cmd, "give at most one of --leaf, --leaf-hex, --leaf-hash");
    va->pname = argv[optind];
    return 0;
}

/* Decode one 32-byte hex option: 0, or the exit status (FAILED for a wrong length). */
static int verify_hex_opt(const char *opt, const char *hex, uint8_t out[MERKLE_HASH_LEN],
                          const char *what)
{
    size_t got;
    int r = hex_hash(hex, out, &got);
    if (r < 0) return cli_cmd_usage(&verify_spec, "%s is not hex: '%s'", opt, hex);
    if (r > 0) {
        printf("FAILED: %s has %zu bytes, %s has %d\n", opt, got, what, MERKLE_HASH_LEN);
        return CLI_FAIL;
    }
    return 0;
}

/* The hex options: 0, or the exit status after a message. */
static int verify_hex_args(verify_args *va)
{
    int rc;
    if (va->root_hex && (rc = verify_hex_opt("--root", va->root_hex, va->root, "a root")) != 0)
        return rc;
    if (va->old_root_hex &&
        (rc = verify_hex_opt("--old-root", va->old_root_hex, va->old_root, "a root")) != 0)
        return rc;
    if (va->leaf_hash_hex &&
        (rc = verify_hex_opt("--leaf-hash", va->leaf_hash_hex, va->leaf_hash, "a leaf hash")) != 0)
        return rc;
    if (va->leaf_hex) {
        size_t hl = strlen(va->leaf_hex);
        va->leaf_data = malloc(hl / 2 + 1);
        if (!va->leaf_data || merkle_hex_decode(va->leaf_data, hl / 2 + 1, &va->leaf_data_len,
                                                va->leaf_hex, hl, NULL) != MERKLE_OK) {
            free(va->leaf_data);
            va->leaf_data = NULL;
            return cli_cmd_usage(&verify_spec, "--leaf-hex is not hex");
        }
    }
    return 0;
}

/* A decoded proof and the leaf stored in it. */
typedef struct loaded_proof {
    merkle_proof p;
    uint8_t *stored_leaf; /* a binary leaf may be nearly the whole file */
    size_t stored_leaf_len;
    int have_stored_leaf;
} loaded_proof;

/* Decode the proof file (binary "MRKP" or JSON): 0, or the exit status after a message. */
static int verify_decode(loaded_proof *lp, const char *pname, const uint8_t *file, size_t flen)
{
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s;
    lp->stored_leaf = malloc(flen + 1);
    if (!lp->stored_leaf) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if (flen >= 4 && memcmp(file, "MRKP", 4) == 0) {
        const uint8_t *leaf;
        s = merkle_proof_decode(&lp->p, &leaf, &lp->stored_leaf_len, file, flen, &err);
        if (s == MERKLE_OK && leaf) {
            memcpy(lp->stored_leaf, leaf, lp->stored_leaf_len);
            lp->have_stored_leaf = 1;
        }
    } else {
        s = merkle_proof_from_json(&lp->p, lp->stored_leaf, flen / 2 + 1, &lp->stored_leaf_len,
                                   (const char *)file, flen, &err);
        lp->have_stored_leaf = s == MERKLE_OK && (lp->p.flags & MERKLE_PROOF_HAS_LEAF);
    }
    if (s == MERKLE_ERR_VERIFY) return verify_failed("%s", err.message);
    if (s != MERKLE_OK) {
        cli_error("%s: malformed proof: %s", pname,
                  err.message[0] ? err.message : merkle_strerror(s));
        return CLI_USAGE;
    }
    return 0;
}

/* The leaf hash of an inclusion proof from the options or the proof (*lh stays NULL when
** there is none): 0, or the exit status after a message. */
static int verify_inclusion_leaf(verify_args *va, const loaded_proof *lp,
                                 uint8_t computed[MERKLE_HASH_LEN], const uint8_t **lh)
{
    const merkle_proof *p = &lp->p;
    const uint8_t *data = NULL;
    size_t dlen = 0;
    if (va->leaf_hash_hex) {
        *lh = va->leaf_hash;
    } else {
        if (va->leaf_file) {
            va->leaf_data = slurp(va->leaf_file, SIZE_MAX / 2, &va->leaf_data_len);
            if (!va->leaf_data) return CLI_USAGE;
        }
        if (va->leaf_data) {
            data = va->leaf_data;
            dlen = va->leaf_data_len;
        } else if (lp->have_stored_leaf) {
            data = lp->stored_leaf;
            dlen = lp->stored_leaf_len;
        }
        if (data) {
            if (leaf_hash_of(computed, p, data, dlen) != 0)
                return verify_failed("%s", "a leaf of this profile is a 32-byte hash");
            *lh = computed;
        }
    }
    /* CometBFT's rule: a leaf must match the proof's own leaf hash when it has one. */
    if (*lh && (p->flags & MERKLE_PROOF_HAS_LEAF_HASH) &&
        !merkle_ct_equal(*lh, p->leaf_hash, MERKLE_HASH_LEN))
        return verify_failed("%s", "the leaf does not match the proof's leaf_hash");
    return 0;
}

/* The leaf hashes of a range proof from --leaf FILE, --leaf-hex or --leaf-hash into hl:
** 0, or the exit status after a message. */
static int verify_range_leaves(verify_args *va, const merkle_proof *p, hash_list *hl)
{
    uint64_t count = p->end > p->index ? p->end - p->index : 0;
    hl->alg = p->hash;
    hl->limit = count;
    if (va->leaf_hash_hex) {
        if (hl_add(hl, NULL, 0) != 0) return CLI_USAGE; /* sized slot, replaced below */
        /* No slot for an empty range (end <= start): the count check fails it. */
        if (hl->n) memcpy(hl->h[0], va->leaf_hash, MERKLE_HASH_LEN);
    } else if (va->leaf_file && p->leaf_size == 0) {
        int fd = cli_open_input(va->leaf_file);
        if (fd < 0) {
            cli_error("%s: %s", va->leaf_file, strerror(errno));
            return CLI_USAGE;
        }
        int rr = root_read_leaves(va->leaf_file, fd, hl_add_cb, hl);
        if (fd != STDIN_FILENO) close(fd);
        if (rr != 0) return CLI_USAGE;
    } else if (va->leaf_file || va->leaf_hex) {
        if (va->leaf_file) {
            va->leaf_data = slurp(va->leaf_file, SIZE_MAX / 2, &va->leaf_data_len);
            if (!va->leaf_data) return CLI_USAGE;
        }
        if (p->leaf_size == 0) {
            if (hl_add(hl, va->leaf_data, va->leaf_data_len) != 0) return CLI_USAGE;
        } else {
            uint64_t ls = p->leaf_size;
            for (size_t off = 0; off < va->leaf_data_len; off += (size_t)ls) {
                size_t take = va->leaf_data_len - off < ls ? va->leaf_data_len - off : (size_t)ls;
                if (hl_add(hl, va->leaf_data + off, take) != 0) return CLI_USAGE;
            }
        }
    } else {
        return cli_cmd_usage(&verify_spec, "a range proof needs the range's leaves: --leaf FILE");
    }
    if (hl->n != count || hl->extra) {
        printf("FAILED: the range [%llu, %llu) has %llu leaves, --leaf gave %llu\n", (ull)p->index,
               (ull)p->end, (ull)count, (ull)(hl->n + hl->extra));
        return CLI_FAIL;
    }
    return 0;
}

/* The trusted roots against the proof's, and what the proof lacks: 0 or the exit status. */
static int verify_preconditions(const verify_args *va, const merkle_proof *p, const uint8_t *lh)
{
    /* A proof that names another root than the trusted one is not a proof for it. */
    if (va->root_hex && (p->flags & MERKLE_PROOF_HAS_ROOT) &&
        !merkle_ct_equal(va->root, p->root, MERKLE_HASH_LEN))
        return verify_failed("%s", "the proof's root differs from --root");
    if (va->old_root_hex && (p->flags & MERKLE_PROOF_HAS_OLD_ROOT) &&
        !merkle_ct_equal(va->old_root, p->old_root, MERKLE_HASH_LEN))
        return verify_failed("%s", "the proof's old root differs from --old-root");
    if (!va->root_hex && !(p->flags & MERKLE_PROOF_HAS_ROOT))
        return cli_cmd_usage(&verify_spec, "the proof has no root: give --root HEX");
    if (p->kind == MERKLE_PROOF_INCLUSION && !lh && !(p->flags & MERKLE_PROOF_HAS_LEAF_HASH))
        return cli_cmd_usage(&verify_spec,
                             "the proof has no leaf: give --leaf, --leaf-hex or --leaf-hash");
    if (p->kind == MERKLE_PROOF_CONSISTENCY && !va->old_root_hex &&
        !(p->flags & MERKLE_PROOF_HAS_OLD_ROOT))
        return cli_cmd_usage(&verify_spec, "the proof has no old root: give --old-root HEX");
    return 0;
}

/* Check a decoded proof with the leaves and roots of the options: the exit status. */
static int verify_proof(verify_args *va, loaded_proof *lp)
{
    merkle_proof *p = &lp->p;
    if (p->profile == MERKLE_PROFILE_BITCOIN) {
        /* --root and --leaf-hash are in display order, as the proof's JSON. */
        reverse32(va->root);
        reverse32(va->leaf_hash);
    }
    const uint8_t *lh = NULL;
    const uint8_t(*lhs)[MERKLE_HASH_LEN] = NULL;
    uint8_t computed[MERKLE_HASH_LEN];
    hash_list hl;
    memset(&hl, 0, sizeof hl);
    int status = 0;
    if (p->kind == MERKLE_PROOF_CONSISTENCY) {
        if (va->leaf_file || va->leaf_hex || va->leaf_hash_hex)
            status = cli_cmd_usage(&verify_spec, "a consistency proof has no leaf: drop --leaf*");
    } else if (p->kind == MERKLE_PROOF_INCLUSION) {
        status = verify_inclusion_leaf(va, lp, computed, &lh);
    } else {
        status = verify_range_leaves(va, p, &hl);
        lhs = (const uint8_t(*)[MERKLE_HASH_LEN])hl.h;
    }
    if (status == 0) status = verify_preconditions(va, p, lh);
    if (status == 0) {
        merkle_error err;
        memset(&err, 0, sizeof err);
        merkle_status s =
            merkle_proof_verify(p, va->root_hex ? va->root : NULL,
                                va->old_root_hex ? va->old_root : NULL, lh, lhs, &err);
        if (s == MERKLE_OK) {
            printf("OK\n");
            if (!va->root_hex)
                fprintf(stderr, "merkle verify: note: checked against the root stored in the "
                                "proof; pass --root to check against a trusted root\n");
            status = fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
        } else {
            status = verify_failed("%s", err.message[0] ? err.message : merkle_strerror(s));
        }
    }
    free(hl.h);
    return status;
}

int cmd_verify(int argc, char **argv)
{
    verify_args va;
    int rc = verify_parse(argc, argv, &va);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if ((rc = verify_hex_args(&va)) != 0) return rc;
    size_t flen = 0;
    uint8_t *file = slurp(va.pname, MAX_PROOF_FILE, &flen);
    if (!file) {
        free(va.leaf_data);
        return CLI_USAGE;
    }
    if (flen && file[0] != 'M' && strstr((const char *)file, "\"multiproof\"")) {
        rc = verify_multiproof(
            va.pname, (const char *)file, flen, va.root_hex ? va.root : NULL,
            !!(va.leaf_file || va.leaf_hex || va.leaf_hash_hex || va.old_root_hex));
    } else {
        loaded_proof *lp = calloc(1, sizeof *lp);
        if (!lp) {
            cli_error("out of memory");
            rc = CLI_FAIL;
        } else if ((rc = verify_decode(lp, va.pname, file, flen)) == 0) {
            rc = verify_proof(&va, lp);
        }
        if (lp) free(lp->stored_leaf);
        free(lp);
    }
    free(file);
    free(va.leaf_data);
    return rc;
}
