/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle proof --index I | --range START:END [root options] [--binary] [FILE]
** merkle consistency --old-size M [root options] [--binary] [FILE]
**
** proof/consistency read their input exactly like `merkle root` (same options, via rootio)
** and feed it once through the library's streaming prover: O(log n) memory whatever the
** input size. merkle verify (cli/cmd_verify.c) checks what they print.
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

#define READ_CHUNK (1u << 20)

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
    { OPT_ROW_VALUE, "value", "ROW", NULL,
      "openzeppelin: prove the value ROW instead of an index, as getProof(value) looks it up "
      "(leafLookup); given more than once: getMultiProof of the values",
      "ROW is a row as --values reads it (with *--load*: of the dump's leafEncoding), or for "
      "a tree of *--leaves* (SimpleMerkleTree) the 32-byte leaf in hex. A value that is in "
      "the tree more than once is found where @openzeppelin/merkle-tree finds it (its last "
      "occurrence in the input); a value not in the tree: exit 1." },
    CLI_OPT_END_ROW,
};

static const cli_opt consistency_opts[] = {
    { OPT_OLD_SIZE, "old-size", "M", NULL,
      "the size of the older tree (0 < M <= the number of leaves)", NULL },
    CLI_OPT_END_ROW,
};

static const cli_opt proof_out_opts[] = {
    { OPT_BINARY, "binary", NULL, NULL,
      "write the binary proof encoding (\"MRKP\", version 1) instead of JSON (--format "
      "binary)",
      NULL },
    { OPT_FORMAT, "format", "FORMAT", "json binary cometbft",
      "json (the default), binary (as --binary), or cometbft: CometBFT's crypto/merkle Proof "
      "JSON (total, index, leaf_hash, aunts; decimal strings and base64, as its RPC writes "
      "it) of an rfc6962 inclusion proof",
      "With --all, one CometBFT proof per line: ProofsFromByteSlices of the leaves." },
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
    "       merkle proof --profile openzeppelin (--values TYPES | --load) --value ROW... [FILE]\n"
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

/* ------------------------------------------------------------------ proof / consistency */

typedef struct proof_job {
    merkle_prover *prover;
    int single;       /* capture the raw bytes of one leaf */
    int hashes;       /* --leaf-hashes: the lines are leaf hashes */
    const char *name; /* the input, for messages */
    uint64_t index;
    uint64_t seen; /* leaves pushed (list mode) */
    uint8_t *leaf; /* captured leaf bytes */
    size_t leaf_len, leaf_cap;
} proof_job;

static int push_leaf_cb(void *ctx, const uint8_t *leaf, size_t len)
{
    proof_job *j = (proof_job *)ctx;
    if (j->hashes) {
        if (len != MERKLE_HASH_LEN) {
            cli_error("%s:%llu: expected a 32-byte leaf hash (64 hex digits), got %zu bytes",
                      j->name, (unsigned long long)j->seen + 1, len);
            return -1;
        }
        j->seen++;
        merkle_status s = merkle_prover_push_leaf_hash(j->prover, leaf);
        if (s != MERKLE_OK) {
            cli_error("%s", merkle_strerror(s));
            return -1;
        }
        return 0;
    }
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
#define MAX_VALUES 256 /* --value options of one command */

typedef struct own_opts {
    const char *index, *range, *old_size, *gindex;
    const char *vals[MAX_VALUES]; /* --value ROW, in order */
    size_t nvals;
    int binary, all;
    int cometbft; /* --format cometbft */
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
        case OPT_ROW_VALUE:
            if (own->nvals == MAX_VALUES)
                return cli_cmd_usage(cmd, "at most %d --value options", MAX_VALUES);
            own->vals[own->nvals++] = arg;
            break;
        case OPT_BINARY: own->binary = 1; break;
        case OPT_FORMAT:
            if (strcmp(arg, "json") == 0) {
                own->binary = own->cometbft = 0;
            } else if (strcmp(arg, "binary") == 0) {
                own->binary = 1;
                own->cometbft = 0;
            } else if (strcmp(arg, "cometbft") == 0) {
                own->binary = 0;
                own->cometbft = 1;
            } else {
                return cli_cmd_usage(cmd, "--format needs json, binary or cometbft, got '%s'", arg);
            }
            break;
        case OPT_ALL: own->all = 1; break;
        default:
            if ((rc = root_opt_apply(o, cmd, c, arg)) != 0) return rc;
        }
    }
    if ((rc = root_opts_finish(o, cmd)) != 0) return rc;
    if (own->cometbft && own->binary)
        return cli_cmd_usage(cmd, "--binary and --format cometbft are two output formats");
    if (cli_hex_0x && (own->binary || own->cometbft))
        return cli_cmd_usage(cmd, "--0x prefixes hex: not with --binary or --format cometbft");
    if (own->cometbft && (o->profile != MERKLE_PROFILE_RFC6962 || o->hash != MERKLE_HASH_SHA256))
        return cli_cmd_usage(cmd, "--format cometbft is CometBFT's tree: the rfc6962 profile "
                                  "with sha256");
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
    int e = cli_pread_full(r->fd, buf, len, offset);
    if (e == 0) return MERKLE_OK;
    int expected = 0;
    atomic_compare_exchange_strong(&r->err, &expected, e > 0 ? e : EIO);
    return MERKLE_ERR_IO;
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
        if (!job->leaf || cli_pread_full(fd, job->leaf, len, lo) != 0) {
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
static int write_proof(merkle_proof *pr, const proof_job *job, int leaves, int binary, int cometbft)
{
    int status = CLI_OK;
    merkle_status s;
    if (leaves) pr->leaf_size = 0;
    const uint8_t *leaf = job->single ? (job->leaf ? job->leaf : (const uint8_t *)"") : NULL;
    size_t leaf_len = job->single ? job->leaf_len : 0;
    if (leaf_len > MERKLE_PROOF_MAX_LEAF && binary) leaf = NULL, leaf_len = 0;
    size_t need = 0;
    if (cometbft)
        (void)merkle_proof_to_cometbft_json(NULL, 0, &need, pr);
    else if (binary)
        (void)merkle_proof_encode(NULL, 0, &need, pr, leaf, leaf_len);
    else
        (void)merkle_proof_to_json(NULL, 0, &need, pr, leaf, leaf_len);
    char *out = malloc(need ? need : 1);
    if (!out) {
        cli_error("out of memory");
        status = CLI_FAIL;
    } else {
        size_t got;
        s = cometbft ? merkle_proof_to_cometbft_json(out, need, &got, pr)
            : binary ? merkle_proof_encode((uint8_t *)out, need, &got, pr, leaf, leaf_len)
                     : merkle_proof_to_json(out, need, &got, pr, leaf, leaf_len);
        if (s != MERKLE_OK) {
            cli_error("%s", merkle_strerror(s));
            status = CLI_FAIL;
        } else if (!binary && !cometbft && cli_hex_0x) {
            size_t n0x = 0;
            char *x = cli_json_0x(out, got - 1, &n0x);
            if (!x) {
                cli_error("out of memory");
                status = CLI_FAIL;
            } else if (write_all(x, n0x) != 0) {
                cli_error("write error: %s", strerror(errno));
                status = CLI_FAIL;
            }
            free(x);
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
    if (own.cometbft && (consistency || own.range))
        return cli_cmd_usage(cmd,
                             "--format cometbft writes inclusion proofs: CometBFT has no %s "
                             "proofs",
                             consistency ? "consistency" : "range");
    if (own.nvals && o.profile != MERKLE_PROFILE_OPENZEPPELIN)
        return cli_cmd_usage(cmd, "--value belongs to the openzeppelin profile");
    if (own.all) {
        if (own.index || own.range || own.gindex)
            return cli_cmd_usage(cmd, "--all proves every leaf: no --index, --range or --gindex");
        if (own.binary) return cli_cmd_usage(cmd, "--all writes JSON lines; --binary is one proof");
        if (!root_profile_classic(o.profile))
            return cli_cmd_usage(cmd, "--all belongs to the rfc6962 and sia profiles");
        return proof_all(&o, name, own.cometbft);
    }
    if (!root_profile_classic(o.profile)) {
        if (consistency || own.range)
            return cli_cmd_usage(cmd, "the %s profile has inclusion proofs and multiproofs only",
                                 merkle_profile_name(o.profile));
        return shaped_prove(&o, name, own.index, own.gindex, own.vals, own.nvals, own.binary);
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
    job.single = kind == MERKLE_PROOF_INCLUSION && !o.leaf_hashes;
    job.hashes = o.leaf_hashes;
    job.name = name;
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
            status = write_proof(pr, &job, o.leaves, own.binary, own.cometbft);
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
