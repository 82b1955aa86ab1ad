/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle clvm: CLVM tree hash and (back-reference) serialization of a hex serialization.
**
**   merkle clvm hash [FILE]
**   merkle clvm serialize [--backrefs] [FILE]
**
** FILE (default or "-": standard input) holds a serialization in hex, canonical or with back
** references; white space is ignored. Exit 0 on success, 1 for malformed input (the message
** names what and the byte offset) or an output over the limit, 2 for usage errors.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Largest hex text read (two characters per byte of a 64 MiB serialization, plus spacing). */
#define CLVM_MAX_TEXT ((size_t)256 << 20)
/* Largest canonical serialization written (hex output is twice this). */
#define CLVM_MAX_OUTPUT ((uint64_t)1 << 30)

/* ------------------------------------------------------------------ options */

static const cli_opt clvm_hash_opts[] = {
    { OPT_0X, "0x", NULL, NULL, "print the tree hash with a 0x prefix, as Chia tools write it",
      NULL },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

static const cli_opt clvm_serialize_opts[] = {
    { OPT_BACKREFS, "backrefs", NULL, NULL,
      "serialize with back references (the clvm_rs encoder, byte for byte)",
      "That is node_to_bytes_backrefs of clvm_rs, in linear time; never longer than the "
      "canonical form." },
    CLI_OPT_HELP_ROW,
    CLI_OPT_END_ROW,
};

#define CLVM_INPUT_TEXT                                                                            \
    "Read a CLVM serialization in hex (canonical or with back references, white space\n"           \
    "ignored) from FILE or standard input.\n"
#define CLVM_EPILOG                                                                                \
    "Limits: 64 MiB of serialized input, 64 MiB atoms, 2^26 nodes, depth 2^20;\n"                  \
    "canonical output up to 1 GiB.\n"                                                              \
    "Exit status: 0 success, 1 malformed input or over a limit, 2 usage error.\n"

const cli_cmd clvm_hash_spec = {
    "clvm hash",
    "print the tree hash (sha256tree)",
    "Usage: merkle clvm hash [FILE]\n" CLVM_INPUT_TEXT
    "Print its tree hash (sha256tree) in lowercase hex.\n",
    { clvm_hash_opts },
    CLVM_EPILOG,
    0,
};

const cli_cmd clvm_serialize_spec = {
    "clvm serialize",
    "print the canonical or back-reference serialization",
    "Usage: merkle clvm serialize [--backrefs] [FILE]\n" CLVM_INPUT_TEXT
    "Print its canonical serialization (or with --backrefs the back-reference one) in hex.\n",
    { clvm_serialize_opts },
    CLVM_EPILOG,
    0,
};

static void help(void)
{
    printf("Usage: merkle clvm hash [FILE]\n"
           "       merkle clvm serialize [--backrefs] [FILE]\n\n" CLVM_INPUT_TEXT
           "  hash         print the tree hash (sha256tree) in lowercase hex\n"
           "  serialize    print the canonical serialization in hex\n\n"
           "Options of serialize:\n");
    cli_help_options(&clvm_serialize_spec, stdout);
    printf("\n" CLVM_EPILOG);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void bad_hex(const char *name, char c, size_t off)
{
    unsigned char uc = (unsigned char)c;
    if (uc >= 0x20 && uc < 0x7f)
        cli_error("clvm: %s: bad hex character '%c' at offset %zu", name, c, off);
    else
        cli_error("clvm: %s: bad hex character (byte 0x%02x) at offset %zu", name, uc, off);
}

/*
** Decode hex text with white space into bytes (in place is fine: output is shorter; a digit
** pair may be split by white space). Runs of digits go through the library's decoder
** (merkle_hex_decode) a few KiB at a time; the first bad character is reported by offset.
*/
static int decode_text(const char *name, const char *text, size_t n, uint8_t *out, size_t *out_len)
{
    uint8_t tmp[4096];
    size_t w = 0, got;
    char pair[2];
    size_t pend_off = SIZE_MAX; /* offset of a first digit waiting for its second */
    merkle_error err;
    size_t first = 0; /* an optional 0x before the first digit (Chia tools print it) */
    while (first < n && is_space(text[first])) first++;
    size_t px = cli_0x_prefix(text + first, n - first);
    first = px ? first + px : 0;
    for (size_t i = first; i < n;) {
        if (is_space(text[i])) {
            i++;
            continue;
        }
        size_t p = i;
        while (i < n && !is_space(text[i])) i++;
        if (pend_off != SIZE_MAX) { /* the run's first digit completes the waiting one */
            pair[1] = text[p];
            if (merkle_hex_decode(tmp, 1, &got, pair, 2, &err) != MERKLE_OK) {
                size_t at = err.offset == 0 ? pend_off : p;
                bad_hex(name, text[at], at);
                return -1;
            }
            out[w++] = tmp[0];
            pend_off = SIZE_MAX;
            p++;
        }
        while (i - p >= 2) {
            size_t take = (i - p) / 2 < sizeof tmp ? (i - p) / 2 * 2 : sizeof tmp * 2;
            if (merkle_hex_decode(tmp, sizeof tmp, &got, text + p, take, &err) != MERKLE_OK) {
                bad_hex(name, text[p + (size_t)err.offset], p + (size_t)err.offset);
                return -1;
            }
            memcpy(out + w, tmp, got); /* out + w lies before text + p: nothing unread */
            w += got;
            p += take;
        }
        if (p < i) {
            pair[0] = text[p];
            pend_off = p;
        }
    }
    if (pend_off != SIZE_MAX) {
        pair[1] = '0';
        if (merkle_hex_decode(tmp, 1, &got, pair, 2, NULL) != MERKLE_OK) {
            bad_hex(name, text[pend_off], pend_off);
            return -1;
        }
        cli_error("clvm: %s: odd number of hex digits (the last one at offset %zu)", name,
                  pend_off);
        return -1;
    }
    *out_len = w;
    return 0;
}

static int write_hex(const uint8_t *data, size_t n)
{
    char buf[2 * 4096 + 1];
    for (size_t off = 0; off < n; off += 4096) {
        size_t k = n - off < 4096 ? n - off : 4096;
        merkle_hex_encode(buf, data + off, k);
        if (fwrite(buf, 1, 2 * k, stdout) != 2 * k) return -1;
    }
    if (fputc('\n', stdout) == EOF || fflush(stdout) != 0) return -1;
    return 0;
}

/* Print the serialization of root (canonical, or with back references): 0 or -1 after a
** message. */
static int print_serialization(const char *name, merkle_sexp_store *st, merkle_sexp_node root,
                               int backrefs)
{
    merkle_error err;
    merkle_status s;
    uint8_t *ser = NULL;
    size_t ser_len = 0;
    if (backrefs) {
        s = merkle_sexp_serialize_backrefs_alloc(&ser, &ser_len, st, root, CLVM_MAX_OUTPUT, &err);
        if (s != MERKLE_OK) {
            cli_error("clvm: %s: %s", name, err.message);
            return -1;
        }
    } else {
        uint64_t need;
        s = merkle_sexp_serialized_length(&need, st, root);
        if (s == MERKLE_ERR_RANGE || (s == MERKLE_OK && need > CLVM_MAX_OUTPUT)) {
            if (s == MERKLE_OK)
                cli_error("clvm: %s: canonical serialization would be %llu bytes, over the "
                          "limit of %llu bytes (the input shares subtrees; try --backrefs)",
                          name, (unsigned long long)need, (unsigned long long)CLVM_MAX_OUTPUT);
            else
                cli_error("clvm: %s: canonical serialization would be larger than 2^64 bytes "
                          "(try --backrefs)",
                          name);
            return -1;
        }
        if (s == MERKLE_OK) {
            ser = malloc(need ? (size_t)need : 1);
            if (!ser) s = MERKLE_ERR_NOMEM;
        }
        if (s == MERKLE_OK) s = merkle_sexp_serialize(ser, (size_t)need, &ser_len, st, root);
        if (s != MERKLE_OK) {
            cli_error("clvm: %s: %s", name, merkle_strerror(s));
            free(ser);
            return -1;
        }
    }
    int rc = 0;
    if (write_hex(ser, ser_len)) {
        cli_error("clvm: write error: %s", strerror(errno));
        rc = -1;
    }
    if (backrefs)
        merkle_sexp_buffer_free(ser);
    else
        free(ser);
    return rc;
}

/* clvm hash / serialize of one input: the exit status. */
static int clvm_run(const char *file, int is_hash, int backrefs)
{
    const char *name = strcmp(file, "-") == 0 ? "(standard input)" : file;

    char *text = NULL;
    size_t text_len = 0;
    int e = cli_read_file(file, CLVM_MAX_TEXT, &text, &text_len);
    if (e == EFBIG) {
        cli_error("clvm: %s: input larger than %zu bytes of hex text", name, CLVM_MAX_TEXT);
        return CLI_FAIL;
    }
    if (e) {
        cli_error("clvm: %s: %s", name, strerror(e));
        return CLI_FAIL;
    }
    uint8_t *bin = (uint8_t *)text;
    size_t bin_len = 0;
    if (decode_text(name, text, text_len, bin, &bin_len)) {
        free(text);
        return CLI_FAIL;
    }
    int rc = CLI_FAIL;
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) {
        free(text); /* bin points into it */
        cli_error("out of memory");
        return CLI_FAIL;
    }
    if (bin_len == 0) {
        cli_error("clvm: %s: empty input (no serialization)", name);
        goto out;
    }
    merkle_sexp_limits lim;
    merkle_sexp_limits_init(&lim);
    merkle_sexp_node root;
    size_t used = 0;
    merkle_error err;
    merkle_status s =
        merkle_sexp_parse(&root, &used, st, bin, bin_len, MERKLE_SEXP_BACKREFS, &lim, &err);
    if (s != MERKLE_OK) {
        cli_error("clvm: %s: %s", name, err.message);
        goto out;
    }
    if (used != bin_len) {
        cli_error("clvm: %s: %zu trailing bytes after the serialization, at byte offset %zu", name,
                  bin_len - used, used);
        goto out;
    }
    if (is_hash) {
        uint8_t h[MERKLE_HASH_LEN];
        char hex[2 * MERKLE_HASH_LEN + 1];
        if ((s = merkle_sexp_tree_hash(h, st, root)) != MERKLE_OK) {
            cli_error("clvm: %s: %s", name, merkle_strerror(s));
            goto out;
        }
        merkle_hex_encode(hex, h, sizeof h);
        if (printf("%s%s\n", cli_hex_0x ? "0x" : "", hex) < 0 || fflush(stdout) != 0) {
            cli_error("clvm: write error: %s", strerror(errno));
            goto out;
        }
        rc = CLI_OK;
        goto out;
    }
    if (print_serialization(name, st, root, backrefs) == 0) rc = CLI_OK;
out:
    merkle_sexp_store_free(st);
    free(text);
    return rc;
}

int cmd_clvm(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("clvm", "missing subcommand (hash or serialize)");
    const char *sub = argv[1];
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0 || strcmp(sub, "help") == 0) {
        help();
        return CLI_OK;
    }
    int is_hash = strcmp(sub, "hash") == 0;
    if (!is_hash && strcmp(sub, "serialize") != 0)
        return cli_usage_error("clvm", "unknown subcommand '%s' (expected hash or serialize)", sub);
    const cli_cmd *cmd = is_hash ? &clvm_hash_spec : &clvm_serialize_spec;
    int backrefs = 0, c;
    cli_parser p;
    cli_parser_init(&p, cmd, argc - 1, argv + 1);
    const char *arg;
    while ((c = cli_opt_next(&p, &arg)) != CLI_OPT_END) {
        if (c == CLI_OPT_HELP) return CLI_OK;
        if (c == CLI_OPT_ERROR) return cli_cmd_usage_rc(cmd);
        if (c == OPT_BACKREFS) backrefs = 1;
        if (c == OPT_0X) cli_hex_0x = 1;
    }
    if (argc - 1 - optind > 1) return cli_cmd_usage(cmd, "more than one input file");
    const char *file = optind < argc - 1 ? argv[1 + optind] : "-";
    return clvm_run(file, is_hash, backrefs);
}
