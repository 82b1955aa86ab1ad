/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** File digests for checksum lists: MD5, SHA-1, SHA-512 via OpenSSL EVP; SHA-256 and BLAKE2b
** via the digest layer (SHA-NI where available; libsodium).
**
** libcrypto is not linked: it is opened with dlopen on the first MD5/SHA-1/SHA-512 digest.
** Loading it costs every process about a millisecond (relocations and OpenSSL's start-up),
** more than a whole cached `merkle check` of a few hundred files, which never hashes. When it
** cannot be opened, those three algorithms fail with MERKLE_ERR_UNSUPPORTED.
*/
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "manifest/manifest_impl.h"

/* The few EVP entry points used, looked up once. */
static struct {
    const EVP_MD *(*md5)(void);
    const EVP_MD *(*sha1)(void);
    const EVP_MD *(*sha512)(void);
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
    int ok;
} evp;
static pthread_once_t evp_once = PTHREAD_ONCE_INIT;

static void evp_load(void)
{
    static const char *const names[] = { "libcrypto.so.3", "libcrypto.so" };
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && h == NULL; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return;
    /* Object pointers to function pointers: the POSIX dlsym way. */
    *(void **)&evp.md5 = dlsym(h, "EVP_md5");
    *(void **)&evp.sha1 = dlsym(h, "EVP_sha1");
    *(void **)&evp.sha512 = dlsym(h, "EVP_sha512");
    *(void **)&evp.ctx_new = dlsym(h, "EVP_MD_CTX_new");
    *(void **)&evp.ctx_free = dlsym(h, "EVP_MD_CTX_free");
    *(void **)&evp.init = dlsym(h, "EVP_DigestInit_ex");
    *(void **)&evp.update = dlsym(h, "EVP_DigestUpdate");
    *(void **)&evp.final = dlsym(h, "EVP_DigestFinal_ex");
    evp.ok = evp.md5 && evp.sha1 && evp.sha512 && evp.ctx_new && evp.ctx_free && evp.init &&
             evp.update && evp.final;
    /* The handle stays open for the life of the process (digest contexts may outlive us). */
}

static int evp_ready(void)
{
    pthread_once(&evp_once, evp_load);
    return evp.ok;
}

void merkle__mdigest_zero(merkle__mdigest *d)
{
    memset(d, 0, sizeof *d);
}

merkle_status merkle__mdigest_init(merkle__mdigest *d, merkle_hash_alg alg, size_t len)
{
    if (!merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    d->alg = alg;
    d->len = len;
    const EVP_MD *md = NULL;
    switch (alg) {
    case MERKLE_HASH_MD5:
    case MERKLE_HASH_SHA1:
    case MERKLE_HASH_SHA512:
        if (!evp_ready()) return MERKLE_ERR_UNSUPPORTED;
        md = alg == MERKLE_HASH_MD5    ? evp.md5()
             : alg == MERKLE_HASH_SHA1 ? evp.sha1()
                                       : evp.sha512();
        break;
    case MERKLE_HASH_SHA256: merkle_sha256_init(&d->u.sha256); return MERKLE_OK;
    case MERKLE_HASH_BLAKE2B: return merkle_blake2b_init(&d->u.blake2b, len);
    default: return MERKLE_ERR_ARG;
    }
    if (!d->evp) {
        d->evp = evp.ctx_new();
        if (!d->evp) return MERKLE_ERR_NOMEM;
    }
    if (md == NULL || evp.init((EVP_MD_CTX *)d->evp, md, NULL) != 1) return MERKLE_ERR_UNSUPPORTED;
    return MERKLE_OK;
}

void merkle__mdigest_update(merkle__mdigest *d, const void *p, size_t n)
{
    if (n == 0) return;
    switch (d->alg) {
    case MERKLE_HASH_SHA256: merkle_sha256_update(&d->u.sha256, p, n); break;
    case MERKLE_HASH_BLAKE2B: merkle_blake2b_update(&d->u.blake2b, p, n); break;
    default: evp.update((EVP_MD_CTX *)d->evp, p, n); break;
    }
}

void merkle__mdigest_final(merkle__mdigest *d, uint8_t *out)
{
    switch (d->alg) {
    case MERKLE_HASH_SHA256: merkle_sha256_final(&d->u.sha256, out); break;
    case MERKLE_HASH_BLAKE2B: merkle_blake2b_final(&d->u.blake2b, out); break;
    default: {
        unsigned int l = 0;
        evp.final((EVP_MD_CTX *)d->evp, out, &l);
        break;
    }
    }
}

void merkle__mdigest_free(merkle__mdigest *d)
{
    if (d->evp) evp.ctx_free((EVP_MD_CTX *)d->evp); /* only ever set after evp_ready() */
    d->evp = NULL;
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
