/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle root --profile fsverity [--block-size N] [--salt HEX] [FILE...]
** merkle root --profile dm-verity [--block-size N] [--salt HEX] [--hash-tree OUT] [FILE...]
**
** fsverity prints the line `fsverity digest` prints ("sha256:<hex> <name>"); dm-verity the
** root hash `veritysetup format` prints, as "<hex>  <name>". The input is streamed through
** the library's merkle_verity (merkle/verity.h).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rootio.h"

#define READ_CHUNK (256u << 10)

typedef unsigned long long ull;

/* Write the dm-verity hash device to a new file (never over an existing one), durably. */
static int write_hash_tree(const char *out_name, const merkle_verity *v)
{
    size_t need = 0;
    (void)merkle_verity_hash_tree(NULL, 0, &need, NULL, v);
    uint8_t *buf = malloc(need ? need : 1);
    if (!buf || merkle_verity_hash_tree(buf, need, &need, NULL, v) != MERKLE_OK) {
        cli_error("--hash-tree: out of memory");
        free(buf);
        return -1;
    }
    int rc = cli_write_new_file(out_name, buf, need, "--hash-tree");
    free(buf);
    return rc;
}

int verity_root(const root_opts *o, const char *name)
{
    uint8_t salt[256];
    size_t salt_len = 0;
    if (o->salt_hex) {
        const char *hex = cli_skip_0x(o->salt_hex); /* 0x-hex */
        size_t hl = strlen(hex);
        if (merkle_hex_decode(salt, sizeof salt, &salt_len, hex, hl, NULL) != MERKLE_OK) {
            cli_error("--salt: not hex of at most 256 bytes: '%s'", o->salt_hex);
            return -1;
        }
    }
    merkle_verity *v;
    merkle_error err;
    memset(&err, 0, sizeof err);
    merkle_status s = merkle_verity_alloc(&v, (merkle_verity_format)o->verity, o->leaf_size, salt,
                                          salt_len, &err);
    if (s != MERKLE_OK) {
        cli_error("%s", err.message[0] ? err.message : merkle_strerror(s));
        return -1;
    }
    int fd = cli_open_input(name);
    if (fd < 0) {
        cli_error("%s: %s", name, strerror(errno));
        merkle_verity_free(v);
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: %s", name, strerror(EISDIR));
        rc = -1;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (rc == 0 && S_ISREG(st.st_mode)) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    uint8_t *buf = rc == 0 ? malloc(READ_CHUNK) : NULL;
    if (rc == 0 && !buf) {
        cli_error("out of memory");
        rc = -1;
    }
    while (rc == 0) {
        ssize_t got = read(fd, buf, READ_CHUNK);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            cli_error("%s: %s", name, strerror(errno));
            rc = -1;
            break;
        }
        if (got == 0) break;
        if ((s = merkle_verity_write(v, buf, (size_t)got)) != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
        }
    }
    free(buf);
    if (fd != STDIN_FILENO) close(fd);
    uint8_t root[MERKLE_HASH_LEN], digest[MERKLE_HASH_LEN];
    int fs = o->verity == MERKLE_VERITY_FSVERITY;
    if (rc == 0) {
        s = merkle_verity_finish(root, fs ? digest : NULL, v);
        if (s == MERKLE_ERR_RANGE) {
            cli_error("%s: dm-verity needs at least one whole block of %zu bytes", name,
                      o->leaf_size);
            rc = -1;
        } else if (s != MERKLE_OK) {
            cli_error("%s: %s", name, merkle_strerror(s));
            rc = -1;
        }
    }
    if (rc == 0 && merkle_verity_uncovered(v))
        cli_error("warning: %s: the last %llu bytes are not a whole block and are not covered "
                  "(as veritysetup format leaves them)",
                  name, (ull)merkle_verity_uncovered(v));
    if (rc == 0 && o->hash_tree) rc = write_hash_tree(o->hash_tree, v);
    if (rc == 0) {
        char hex[2 * MERKLE_HASH_LEN + 1];
        merkle_hex_encode(hex, fs ? digest : root, MERKLE_HASH_LEN);
        if (fs)
            printf("sha256:%s %s\n", hex, name); /* exactly `fsverity digest` */
        else
            cli_print_digest_line(stdout, hex, name, 0, 0);
    }
    merkle_verity_free(v);
    return rc;
}
