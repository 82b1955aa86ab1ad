/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle compact append [--hash H] [--begin N] [--leaf-hashes] STATE [FILE]
** merkle compact merge STATE RIGHT...
** merkle compact root STATE
** merkle compact show STATE
**
** A saved compact range (the "MKCR" encoding of merkle_compact_range_encode, docs/proofs.md)
** is a transparency log's state: append adds leaves, or leaf hashes, at its end; merge
** appends the ranges of other files that continue it; root prints the tree root of a range
** that starts at 0; show prints what it holds. STATE is written atomically (a temporary of
** our own beside it, fsync, rename) and only ever over nothing or over a compact-range file.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------------ options */

static const cli_opt compact_append_opts[] = {
    { OPT_HASH, "hash", "H", "sha256 blake2b-256 keccak256",
      "hash of a new STATE: sha256 (the default, RFC 6962), blake2b-256 or keccak256",
      "With an existing STATE it must name the STATE's hash, or be left out." },
    { OPT_BEGIN, "begin", "N", NULL, "first leaf index of a new STATE (default 0)",
      "With an existing STATE it must be the STATE's begin, or be left out." },
    { OPT_LEAF_HASHES, "leaf-hashes", NULL, NULL,
      "each input line is a leaf hash (32 bytes in hex), not a leaf",
      "As a transparency log stores them: the hash is appended as it is." },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt compact_help_opts[] = {
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

#define COMPACT_EXIT                                                                               \
    "Exit status: 0 success, 1 an unreadable, malformed or non-adjacent input, or a STATE\n"       \
    "that is not a compact-range file (left untouched), 2 usage error.\n"

const cli_cmd compact_append_spec = {
    "compact append",
    "append leaves or leaf hashes to a saved compact range",
    "Usage: merkle compact append [--hash H] [--begin N] [--leaf-hashes] STATE [FILE]\n"
    "Append the leaves of FILE (default: standard input; '-' too), one per line in hex (an\n"
    "empty line is an empty leaf; an optional 0x prefix), to the compact range saved in STATE,\n"
    "created empty when it does not exist. STATE is replaced atomically.\n",
    { compact_append_opts },
    COMPACT_EXIT,
    0,
};

const cli_cmd compact_merge_spec = {
    "compact merge",
    "append the saved ranges that continue a saved compact range",
    "Usage: merkle compact merge STATE RIGHT...\n"
    "Append the compact ranges saved in each RIGHT, in order, to the one in STATE: each must\n"
    "begin where the previous one ends and use the same hash. STATE is replaced atomically,\n"
    "and only when every RIGHT merged.\n",
    { compact_help_opts },
    COMPACT_EXIT,
    0,
};

const cli_cmd compact_root_spec = {
    "compact root",
    "print the tree root of a saved compact range that begins at 0",
    "Usage: merkle compact root STATE\n"
    "Print the root of the tree of leaves [0, end) in lowercase hex: the range saved in STATE\n"
    "must begin at 0 (an empty one gives the empty tree's root, the hash of nothing).\n",
    { compact_help_opts },
    COMPACT_EXIT,
    0,
};

const cli_cmd compact_show_spec = {
    "compact show",
    "print what a saved compact range holds (JSON)",
    "Usage: merkle compact show STATE\n"
    "Print the range saved in STATE as one JSON object: {\"hash\": NAME, \"begin\": N, \"end\":\n"
    "N, \"hashes\": [HEX, ...]} (the hashes of its maximal aligned blocks, left to right, as\n"
    "transparency-dev's compact.Range holds them).\n",
    { compact_help_opts },
    COMPACT_EXIT,
    0,
};

static void help(void)
{
    printf("Usage: merkle compact append [--hash H] [--begin N] [--leaf-hashes] STATE [FILE]\n"
           "       merkle compact merge STATE RIGHT...\n"
           "       merkle compact root STATE\n"
           "       merkle compact show STATE\n\n"
           "Saved compact ranges (format 'MKCR' v1, see docs/proofs.md): the state of an\n"
           "append-only log.\n\n"
           "  append   append FILE's leaves (hex, one per line) or, with --leaf-hashes, leaf\n"
           "           hashes to STATE (created when absent)\n"
           "  merge    append the ranges saved in RIGHT... to STATE\n"
           "  root     print the tree root of STATE (which must begin at 0)\n"
           "  show     print STATE as JSON: hash, begin, end, hashes\n\n"
           "Options of append:\n");
    cli_help_options(&compact_append_spec, stdout);
    printf("\n" COMPACT_EXIT);
}

/* ------------------------------------------------------------------ state files */

#define STATE_MAX (MERKLE_COMPACT_ENCODED_MAX + 1)

/*
** Load a saved range. 0, or 1 after the message (unreadable, not a compact-range file).
** With missing_ok, a name that does not exist gives 0 and *exists = 0.
*/
static int load_state(const char *name, merkle_compact_range *r, int missing_ok, int *exists)
{
    struct stat st;
    if (exists) *exists = 1;
    if (lstat(name, &st) != 0) {
        if (errno == ENOENT && missing_ok) {
            *exists = 0;
            return 0;
        }
        cli_error("%s: %s", name, strerror(errno));
        return CLI_FAIL;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("%s: not a regular file (a compact-range file is one); left untouched", name);
        return CLI_FAIL;
    }
    char *buf;
    size_t len;
    int e = cli_read_file(name, STATE_MAX, &buf, &len);
    if (e != 0) {
        if (e == EFBIG) {
            cli_error("%s: not a compact-range file (too large); left untouched", name);
        } else {
            cli_read_error(NULL, name, e, STATE_MAX);
        }
        return CLI_FAIL;
    }
    merkle_error err;
    merkle_status s = merkle_compact_range_decode(r, (const uint8_t *)buf, len, &err);
    free(buf);
    if (s != MERKLE_OK) {
        cli_error("%s: %s; left untouched", name, err.message);
        return CLI_FAIL;
    }
    return 0;
}

/* Write r to name atomically: a new temporary beside it, fsync, rename, fsync the directory.
** 0 or 1. */
static int save_state(const char *name, const merkle_compact_range *r, int exists)
{
    uint8_t buf[MERKLE_COMPACT_ENCODED_MAX];
    size_t len;
    if (merkle_compact_range_encode(buf, sizeof buf, &len, r) != MERKLE_OK) {
        cli_error("%s: cannot encode the range", name);
        return CLI_FAIL;
    }
    size_t nl = strlen(name);
    char *tmp = malloc(nl + 16);
    if (!tmp) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    memcpy(tmp, name, nl);
    memcpy(tmp + nl, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error("%s: cannot create a temporary beside it: %s", name, strerror(errno));
        free(tmp);
        return CLI_FAIL;
    }
    mode_t mode = 0644;
    struct stat st;
    if (exists && stat(name, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode &= (mode_t)~um;
    }
    int ok = fchmod(fd, mode) == 0;
    size_t off = 0;
    while (ok && off < len) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ok = 0;
            break;
        }
        off += (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, name) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        (void)unlink(tmp);
        cli_error("%s: write error: %s", name, strerror(saved));
    } else if ((saved = cli_fsync_parent(name)) != 0) {
        /* In place but perhaps not durable: an error all the same. */
        ok = 0;
        cli_error("%s: cannot sync its directory: %s", name, strerror(saved));
    }
    free(tmp);
    return ok ? 0 : CLI_FAIL;
}

/* ------------------------------------------------------------------ actions */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Append the lines of buf[0..len) to r. 0, or 1 after "merkle: NAME:LINE: ...". */
static int append_lines(merkle_compact_range *r, const char *shown, const char *buf, size_t len,
                        int leaf_hashes)
{
    uint8_t *leaf = malloc(len / 2 + 1);
    if (!leaf) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    uint64_t line = 0;
    int rc = 0;
    for (size_t pos = 0; pos < len && rc == 0;) {
        const char *nlp = memchr(buf + pos, '\n', len - pos);
        size_t end = nlp ? (size_t)(nlp - buf) : len;
        size_t a = pos, b = end;
        pos = nlp ? end + 1 : len;
        line++;
        while (a < b && is_space(buf[a])) a++;
        while (b > a && is_space(buf[b - 1])) b--;
        a += cli_0x_prefix((const char *)buf + a, b - a);
        size_t n;
        merkle_error err;
        if (merkle_hex_decode(leaf, len / 2 + 1, &n, buf + a, b - a, &err) != MERKLE_OK) {
            cli_error("%s:%llu: %s", shown, (unsigned long long)line, err.message);
            rc = CLI_FAIL;
            break;
        }
        merkle_status s;
        if (leaf_hashes) {
            if (n != MERKLE_HASH_LEN) {
                cli_error("%s:%llu: a leaf hash is 32 bytes (64 hex digits), not %zu", shown,
                          (unsigned long long)line, n);
                rc = CLI_FAIL;
                break;
            }
            s = merkle_compact_range_append_leaf_hash(r, leaf);
        } else {
            s = merkle_compact_range_append_leaf(r, leaf, n);
        }
        if (s != MERKLE_OK) {
            cli_error("%s:%llu: %s", shown, (unsigned long long)line, merkle_strerror(s));
            rc = CLI_FAIL;
        }
    }
    free(leaf);
    return rc;
}

typedef struct compact_args {
    const char *hash_s, *begin_s;
    int leaf_hashes;
} compact_args;

static int do_append(const cli_cmd *cmd, const compact_args *ca, char **ops, int nops)
{
    if (nops < 1) return cli_cmd_usage(cmd, "missing STATE");
    if (nops > 2) return cli_cmd_usage(cmd, "at most one FILE after STATE");
    merkle_hash_alg hash = MERKLE_HASH_SHA256;
    if (ca->hash_s && merkle_hash_alg_from_name(&hash, ca->hash_s) != MERKLE_OK)
        return cli_cmd_usage(cmd, "unknown --hash '%s' (sha256, blake2b-256, keccak256)",
                             ca->hash_s);
    uint64_t begin = 0;
    if (ca->begin_s && cli_parse_u64(ca->begin_s, &begin) != 0)
        return cli_cmd_usage(cmd, "--begin needs a leaf index, not '%s'", ca->begin_s);
    merkle_compact_range r;
    if (merkle_compact_range_init(&r, hash, begin) != MERKLE_OK)
        return cli_cmd_usage(cmd, "--hash %s cannot build compact ranges", ca->hash_s);
    const char *state = ops[0];
    int exists;
    if (load_state(state, &r, 1, &exists) != 0) return CLI_FAIL;
    if (exists && ca->hash_s && merkle_compact_range_hash(&r) != hash)
        return cli_cmd_usage(cmd, "--hash %s, but %s holds a %s range", ca->hash_s, state,
                             merkle_hash_alg_name(merkle_compact_range_hash(&r)));
    if (exists && ca->begin_s && merkle_compact_range_begin(&r) != begin)
        return cli_cmd_usage(cmd, "--begin %s, but %s begins at %llu", ca->begin_s, state,
                             (unsigned long long)merkle_compact_range_begin(&r));
    const char *file = nops == 2 ? ops[1] : "-";
    char *buf;
    size_t len;
    int e = cli_read_file(file, cli_input_max(), &buf, &len);
    if (e != 0) {
        cli_read_limit_error(file, e, cli_input_max(), "a leaf list");
        return CLI_FAIL;
    }
    const char *shown = strcmp(file, "-") == 0 ? "(standard input)" : file;
    int rc = append_lines(&r, shown, buf, len, ca->leaf_hashes);
    free(buf);
    if (rc != 0) return rc;
    return save_state(state, &r, exists);
}

static int do_merge(const cli_cmd *cmd, char **ops, int nops)
{
    if (nops < 2) return cli_cmd_usage(cmd, "expected STATE and at least one RIGHT");
    merkle_compact_range r, right;
    if (load_state(ops[0], &r, 0, NULL) != 0) return CLI_FAIL;
    for (int i = 1; i < nops; i++) {
        if (load_state(ops[i], &right, 0, NULL) != 0) return CLI_FAIL;
        merkle_status s = merkle_compact_range_merge(&r, &right);
        if (s != MERKLE_OK) {
            if (merkle_compact_range_hash(&right) != merkle_compact_range_hash(&r)) {
                cli_error("%s: a %s range does not merge with a %s one; %s left untouched", ops[i],
                          merkle_hash_alg_name(merkle_compact_range_hash(&right)),
                          merkle_hash_alg_name(merkle_compact_range_hash(&r)), ops[0]);
            } else {
                cli_error("%s: begins at %llu, not where the range before it ends (%llu); %s "
                          "left untouched",
                          ops[i], (unsigned long long)merkle_compact_range_begin(&right),
                          (unsigned long long)merkle_compact_range_end(&r), ops[0]);
            }
            return CLI_FAIL;
        }
    }
    return save_state(ops[0], &r, 1);
}

static int flush_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error: %s", strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}

static int do_root(const cli_cmd *cmd, char **ops, int nops)
{
    if (nops != 1) return cli_cmd_usage(cmd, "expected exactly one STATE");
    merkle_compact_range r;
    if (load_state(ops[0], &r, 0, NULL) != 0) return CLI_FAIL;
    uint8_t root[MERKLE_HASH_LEN];
    if (merkle_compact_range_begin(&r) != 0) {
        cli_error("%s: the range begins at %llu, not 0: it has no tree root", ops[0],
                  (unsigned long long)merkle_compact_range_begin(&r));
        return CLI_FAIL;
    }
    merkle_status s =
        merkle_compact_range_end(&r) == 0
            ? merkle_tree_empty_root(root, MERKLE_PROFILE_RFC6962, merkle_compact_range_hash(&r))
            : merkle_compact_range_root(root, &r);
    if (s != MERKLE_OK) {
        cli_error("%s: %s", ops[0], merkle_strerror(s));
        return CLI_FAIL;
    }
    char hex[2 * MERKLE_HASH_LEN + 1];
    merkle_hex_encode(hex, root, sizeof root);
    printf("%s\n", hex);
    return flush_stdout();
}

static int do_show(const cli_cmd *cmd, char **ops, int nops)
{
    if (nops != 1) return cli_cmd_usage(cmd, "expected exactly one STATE");
    merkle_compact_range r;
    if (load_state(ops[0], &r, 0, NULL) != 0) return CLI_FAIL;
    static uint8_t hashes[MERKLE_COMPACT_MAX][MERKLE_HASH_LEN];
    size_t n = 0;
    (void)merkle_compact_range_hashes(hashes, MERKLE_COMPACT_MAX, &n, &r);
    printf("{\"hash\": \"%s\", \"begin\": %llu, \"end\": %llu, \"hashes\": [",
           merkle_hash_alg_name(merkle_compact_range_hash(&r)),
           (unsigned long long)merkle_compact_range_begin(&r),
           (unsigned long long)merkle_compact_range_end(&r));
    for (size_t i = 0; i < n; i++) {
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, hashes[i], MERKLE_HASH_LEN);
        printf("%s\"%s\"", i ? ", " : "", hex);
    }
    printf("]}\n");
    return flush_stdout();
}

int cmd_compact(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("compact", "missing action: append, merge, root or show");
    const char *action = argv[1];
    if (strcmp(action, "-h") == 0 || strcmp(action, "--help") == 0) {
        help();
        return CLI_OK;
    }
    const cli_cmd *cmd = strcmp(action, "append") == 0  ? &compact_append_spec
                         : strcmp(action, "merge") == 0 ? &compact_merge_spec
                         : strcmp(action, "root") == 0  ? &compact_root_spec
                         : strcmp(action, "show") == 0  ? &compact_show_spec
                                                        : NULL;
    if (!cmd)
        return cli_usage_error("compact", "unknown action '%s' (append, merge, root or show)",
                               action);
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    cli_parser p;
    cli_parser_init(&p, cmd, sub_argc, sub_argv);
    compact_args ca = { NULL, NULL, 0 };
    const char *arg;
    int c;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP: return CLI_OK;
        case CLI_OPT_ERROR: return cli_cmd_usage_rc(cmd);
        case OPT_HASH: ca.hash_s = arg; break;
        case OPT_BEGIN: ca.begin_s = arg; break;
        case OPT_LEAF_HASHES: ca.leaf_hashes = 1; break;
        default: break;
        }
    }
    char **ops = sub_argv + optind;
    int nops = sub_argc - optind;
    if (cmd == &compact_append_spec) return do_append(cmd, &ca, ops, nops);
    if (cmd == &compact_merge_spec) return do_merge(cmd, ops, nops);
    if (cmd == &compact_root_spec) return do_root(cmd, ops, nops);
    return do_show(cmd, ops, nops);
}
