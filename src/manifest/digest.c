/*
** File digests for checksum lists: MD5, SHA-1, SHA-512 via OpenSSL EVP; SHA-256 and BLAKE2b
** via the digest layer (SHA-NI where available; libsodium).
*/
#include <errno.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "manifest/manifest_impl.h"

void merkle__mdigest_zero(merkle__mdigest *d)
{
    memset(d, 0, sizeof *d);
}

merkle_status merkle__mdigest_init(merkle__mdigest *d, merkle_manifest_alg alg, size_t len)
{
    if (!merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    d->alg = alg;
    d->len = len;
    const EVP_MD *md = NULL;
    switch (alg) {
    case MERKLE_MANIFEST_MD5: md = EVP_md5(); break;
    case MERKLE_MANIFEST_SHA1: md = EVP_sha1(); break;
    case MERKLE_MANIFEST_SHA512: md = EVP_sha512(); break;
    case MERKLE_MANIFEST_SHA256: merkle_sha256_init(&d->u.sha256); return MERKLE_OK;
    case MERKLE_MANIFEST_BLAKE2B: return merkle_blake2b_init(&d->u.blake2b, len);
    default: return MERKLE_ERR_ARG;
    }
    if (!d->evp) {
        d->evp = EVP_MD_CTX_new();
        if (!d->evp) return MERKLE_ERR_NOMEM;
    }
    if (EVP_DigestInit_ex((EVP_MD_CTX *)d->evp, md, NULL) != 1) return MERKLE_ERR_UNSUPPORTED;
    return MERKLE_OK;
}

void merkle__mdigest_update(merkle__mdigest *d, const void *p, size_t n)
{
    if (n == 0) return;
    switch (d->alg) {
    case MERKLE_MANIFEST_SHA256: merkle_sha256_update(&d->u.sha256, p, n); break;
    case MERKLE_MANIFEST_BLAKE2B: merkle_blake2b_update(&d->u.blake2b, p, n); break;
    default: EVP_DigestUpdate((EVP_MD_CTX *)d->evp, p, n); break;
    }
}

void merkle__mdigest_final(merkle__mdigest *d, uint8_t *out)
{
    switch (d->alg) {
    case MERKLE_MANIFEST_SHA256: merkle_sha256_final(&d->u.sha256, out); break;
    case MERKLE_MANIFEST_BLAKE2B: merkle_blake2b_final(&d->u.blake2b, out); break;
    default: {
        unsigned int l = 0;
        EVP_DigestFinal_ex((EVP_MD_CTX *)d->evp, out, &l);
        break;
    }
    }
}

void merkle__mdigest_free(merkle__mdigest *d)
{
    if (d->evp) EVP_MD_CTX_free((EVP_MD_CTX *)d->evp);
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

merkle_status merkle_manifest_digest_fd(uint8_t *out, merkle_manifest_alg alg, size_t digest_len,
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

merkle_status merkle_manifest_digest(uint8_t *out, merkle_manifest_alg alg, size_t digest_len,
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

void merkle__file_id_from_stat(merkle_file_id *id, const struct stat *st)
{
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000LL + (int64_t)st->st_mtim.tv_nsec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000LL + (int64_t)st->st_ctim.tv_nsec;
}

int merkle__file_id_equal(const merkle_file_id *a, const merkle_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}
