/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** File digests for checksum lists: MD5, SHA-1 and SHA-512 in-tree (hash/md.h), SHA-256 and
** BLAKE2b via the digest layer (SHA-NI where available; libsodium). No libcrypto: a static,
** musl or Windows build computes every algorithm (it was opened with dlopen until 1.0).
*/
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

#include "common/internal.h"
#include "manifest/manifest_impl.h"

void merkle__mdigest_zero(merkle__mdigest *d)
{
    memset(d, 0, sizeof *d);
}

merkle_status merkle__mdigest_init(merkle__mdigest *d, merkle_hash_alg alg, size_t len)
{
    if (!merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    d->alg = alg;
    d->len = len;
    switch (alg) {
    case MERKLE_HASH_MD5: merkle__md5s_init(&d->u.md5); return MERKLE_OK;
    case MERKLE_HASH_SHA1: merkle__sha1_init(&d->u.sha1); return MERKLE_OK;
    case MERKLE_HASH_SHA512: merkle__sha512_init(&d->u.sha512); return MERKLE_OK;
    case MERKLE_HASH_SHA256: merkle_sha256_init(&d->u.sha256); return MERKLE_OK;
    case MERKLE_HASH_BLAKE2B: return merkle_blake2b_init(&d->u.blake2b, len);
    default: return MERKLE_ERR_ARG;
    }
}

void merkle__mdigest_update(merkle__mdigest *d, const void *p, size_t n)
{
    if (n == 0) return;
    switch (d->alg) {
    case MERKLE_HASH_MD5: merkle__md5s_update(&d->u.md5, p, n); break;
    case MERKLE_HASH_SHA1: merkle__sha1_update(&d->u.sha1, p, n); break;
    case MERKLE_HASH_SHA512: merkle__sha512_update(&d->u.sha512, p, n); break;
    case MERKLE_HASH_SHA256: merkle_sha256_update(&d->u.sha256, p, n); break;
    case MERKLE_HASH_BLAKE2B: merkle_blake2b_update(&d->u.blake2b, p, n); break;
    default: break;
    }
}

void merkle__mdigest_final(merkle__mdigest *d, uint8_t *out)
{
    switch (d->alg) {
    case MERKLE_HASH_MD5: merkle__md5s_final(&d->u.md5, out); break;
    case MERKLE_HASH_SHA1: merkle__sha1_final(&d->u.sha1, out); break;
    case MERKLE_HASH_SHA512: merkle__sha512_final(&d->u.sha512, out); break;
    case MERKLE_HASH_SHA256: merkle_sha256_final(&d->u.sha256, out); break;
    case MERKLE_HASH_BLAKE2B: merkle_blake2b_final(&d->u.blake2b, out); break;
    default: break;
    }
}

void merkle__mdigest_free(merkle__mdigest *d)
{
    (void)d; /* nothing allocated: every state lives in the union */
}

int merkle__mdigest_fd(merkle__mdigest *d, int fd, uint8_t *buf, size_t cap, uint64_t *size)
{
    uint64_t total = 0;
    for (;;) {
        ssize_t r = read(fd, buf, cap);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (r == 0) break;
        merkle__mdigest_update(d, buf, (size_t)r);
        total += (uint64_t)r;
    }
    if (size) *size = total;
    return 0;
}

merkle_status merkle__manifest_digest_fd(uint8_t *out, merkle_hash_alg alg, size_t digest_len,
                                         int fd, uint64_t *size, merkle_error *error)
{
    if (!out || fd < 0) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    merkle__mdigest d;
    merkle__mdigest_zero(&d);
    merkle_status s = merkle__mdigest_init(&d, alg, digest_len);
    if (s != MERKLE_OK) {
        merkle__mdigest_free(&d);
        return merkle__fail(error, s, 0, 0, "bad algorithm or digest length");
    }
    uint8_t buf[65536];
    int e = merkle__mdigest_fd(&d, fd, buf, sizeof buf, size);
    if (e) {
        merkle__mdigest_free(&d);
        return merkle__fail_errno(error, e, "read: %s", strerror(e));
    }
    merkle__mdigest_final(&d, out);
    merkle__mdigest_free(&d);
    return MERKLE_OK;
}

merkle_status merkle_manifest_digest(uint8_t *out, merkle_hash_alg alg, size_t digest_len,
                                     const void *data, size_t len)
{
    if (!out || (!data && len)) return MERKLE_ERR_ARG;
    merkle__mdigest d;
    merkle__mdigest_zero(&d);
    merkle_status s = merkle__mdigest_init(&d, alg, digest_len);
    if (s == MERKLE_OK) {
        merkle__mdigest_update(&d, data, len);
        merkle__mdigest_final(&d, out);
    }
    merkle__mdigest_free(&d);
    return s;
}

merkle_status merkle_manifest_digest_file(uint8_t *out, merkle_hash_alg alg, size_t digest_len,
                                          const char *path, uint64_t *size, merkle_error *error)
{
    if (!out || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    if (!merkle__manifest_len_ok(alg, digest_len))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad algorithm or digest length");
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    }
    merkle_status s = merkle__manifest_digest_fd(out, alg, digest_len, fd, size, error);
    close(fd);
    return s;
}

merkle_status merkle_file_id_of(merkle_file_id *out, const char *path, merkle_error *error)
{
    if (!out || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    }
    merkle__file_id_from_stat(out, &st);
    return MERKLE_OK;
}

int merkle__file_id_equal(const merkle_file_id *a, const merkle_file_id *b)
{
    return a->dev == b->dev && a->ino_hi == b->ino_hi && a->ino_lo == b->ino_lo &&
           a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}
