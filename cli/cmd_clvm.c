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
#include "common/internal.h"

/* Largest hex text read (two characters per byte of a 64 MiB serialization, plus spacing). */
#define CLVM_MAX_TEXT ((size_t)256 << 20)
/* Largest canonical serialization written (hex output is twice this). */
#define CLVM_MAX_OUTPUT ((uint64_t)1 << 30)

static void help(void)
{
    printf("Usage: merkle clvm hash [FILE]\n"
           "       merkle clvm serialize [--backrefs] [FILE]\n\n"
           "Read a CLVM serialization in hex (canonical or with back references, white space\n"
           "ignored) from FILE or standard input.\n"
           "  hash         print the tree hash (sha256tree) in lowercase hex\n"
           "  serialize    print the canonical serialization in hex\n"
           "  --backrefs   serialize with back references (clvm_rs-compatible encoder)\n"
           "  -h, --help   this help\n\n"
           "Limits: 64 MiB of serialized input, 64 MiB atoms, 2^26 nodes, depth 2^20;\n"
           "canonical output up to 1 GiB.\n"
           "Exit status: 0 success, 1 malformed input or over a limit, 2 usage error.\n");
}

/* Read all of fd into a malloc'd buffer; -1 with errno on failure, -2 when over max. */
static int read_all(int fd, char **out, size_t *len, size_t max)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return -1;
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                free(buf);
                return -2;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                return -1;
            }
            buf = p;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            free(buf);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
        if (n > max) {
            free(buf);
            return -2;
        }
    }
    *out = buf;
    *len = n;
    return 0;
}


/* Decode hex text with white space into bytes (in place is fine: output is shorter). */
static int decode_text(const char *name, const char *text, size_t n, uint8_t *out, size_t *out_len)
{
    size_t w = 0;
    int hi = -1;
    size_t hi_off = 0;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
        int v = merkle__hex_digit(c);
        if (v < 0) {
            unsigned char uc = (unsigned char)c;
            if (uc >= 0x20 && uc < 0x7f)
                cli_error("clvm: %s: bad hex character '%c' at offset %zu", name, c, i);
            else
                cli_error("clvm: %s: bad hex character (byte 0x%02x) at offset %zu", name, uc, i);
            return -1;
        }
        if (hi < 0) {
            hi = v;
            hi_off = i;
        } else {
            out[w++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        cli_error("clvm: %s: odd number of hex digits (the last one at offset %zu)", name, hi_off);
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
        return cli_usage_error("clvm", "unknown subcommand '%s' (expected hash or serialize)",
                               sub);
    int backrefs = 0, only_files = 0;
    const char *file = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!only_files && strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (!only_files && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            help();
            return CLI_OK;
        } else if (!only_files && strcmp(a, "--backrefs") == 0 && !is_hash) {
            backrefs = 1;
        } else if (!only_files && a[0] == '-' && a[1] != '\0') {
            return cli_usage_error("clvm", "unknown option '%s' for clvm %s", a, sub);
        } else if (file) {
            return cli_usage_error("clvm", "more than one input file");
        } else {
            file = a;
        }
    }
    if (!file) file = "-";
    const char *name = strcmp(file, "-") == 0 ? "(standard input)" : file;

    int fd = cli_open_input(file);
    if (fd < 0) {
        cli_error("clvm: %s: %s", name, strerror(errno));
        return CLI_FAIL;
    }
    char *text = NULL;
    size_t text_len = 0;
    int r = read_all(fd, &text, &text_len, CLVM_MAX_TEXT);
    int saved = errno;
    if (fd != STDIN_FILENO) close(fd);
    if (r == -2) {
        cli_error("clvm: %s: input larger than %zu bytes of hex text", name, CLVM_MAX_TEXT);
        return CLI_FAIL;
    }
    if (r < 0) {
        cli_error("clvm: %s: %s", name, strerror(saved));
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
    merkle_status s = merkle_sexp_parse(&root, &used, st, bin, bin_len, MERKLE_SEXP_BACKREFS,
                                        &lim, &err);
    if (s != MERKLE_OK) {
        cli_error("clvm: %s: %s", name, err.message);
        goto out;
    }
    if (used != bin_len) {
        cli_error("clvm: %s: %zu trailing bytes after the serialization, at byte offset %zu",
                  name, bin_len - used, used);
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
        if (printf("%s\n", hex) < 0 || fflush(stdout) != 0) {
            cli_error("clvm: write error: %s", strerror(errno));
            goto out;
        }
        rc = CLI_OK;
        goto out;
    }
    uint8_t *ser = NULL;
    size_t ser_len = 0;
    if (backrefs) {
        s = merkle_sexp_serialize_backrefs_alloc(&ser, &ser_len, st, root, CLVM_MAX_OUTPUT, &err);
        if (s != MERKLE_OK) {
            cli_error("clvm: %s: %s", name, err.message);
            goto out;
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
            goto out;
        }
        if (s == MERKLE_OK) {
            ser = malloc(need ? (size_t)need : 1);
            if (!ser) s = MERKLE_ERR_NOMEM;
        }
        if (s == MERKLE_OK) s = merkle_sexp_serialize(ser, (size_t)need, &ser_len, st, root);
        if (s != MERKLE_OK) {
            cli_error("clvm: %s: %s", name, merkle_strerror(s));
            free(ser);
            goto out;
        }
    }
    if (write_hex(ser, ser_len)) {
        cli_error("clvm: write error: %s", strerror(errno));
    } else {
        rc = CLI_OK;
    }
    if (backrefs)
        merkle_sexp_buffer_free(ser);
    else
        free(ser);
out:
    merkle_sexp_store_free(st);
    free(text);
    return rc;
}
