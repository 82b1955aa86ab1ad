/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internals of the manifest layer. Never installed.
*/
#ifndef MERKLE_MANIFEST_IMPL_H
#define MERKLE_MANIFEST_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "os/os.h"

#include "hash/md.h"
#include "merkle/hash.h"
#include "merkle/manifest.h"

/* The opaque merkle_manifest. */
struct merkle_manifest {
    merkle_manifest_entry *entries;
    size_t count;
    uint64_t *bad_lines;
    size_t bad_count;
    uint64_t lines; /* lines read */
    char *storage;  /* the text the entries' names point into */
};

/* 1 for a checksum-list digest (MD5 .. BLAKE2b). */
int merkle__manifest_alg_ok(merkle_hash_alg alg);

/* Digest of an open file descriptor (merkle_manifest_digest_file's engine; standard input). */
merkle_status merkle__manifest_digest_fd(uint8_t *out, merkle_hash_alg alg, size_t digest_len,
                                         int fd, uint64_t *size, merkle_error *err);

/* merkle_manifest_check / merkle_manifest_hash_files with names relative to dirfd (opts->dir
** ignored): the audit walks and checks one open directory. regular_only: a name that is not a
** regular file is refused unread, as merkle_manifest_check does (MERKLE_CHECK_ERROR, sys_errno
** EISDIR or EINVAL); 0 reads it, as merkle_manifest_hash_files does. */
merkle_status merkle__manifest_check_at(merkle_check_result *results,
                                        const merkle_manifest_entry *entries, size_t n,
                                        const merkle_check_opts *opts, int dirfd,
                                        merkle_error *err);
merkle_status merkle__manifest_hash_files_at(merkle_check_result *results, const char *const *names,
                                             size_t n, merkle_hash_alg alg, size_t digest_len,
                                             const merkle_check_opts *opts, int dirfd,
                                             int regular_only, merkle_error *err);

/* 1 when len bytes is a valid digest length for alg. */
int merkle__manifest_len_ok(merkle_hash_alg alg, size_t len);

/* Streaming digest over the manifest algorithms, all in-tree (hash/md.h for MD5, SHA-1 and
** SHA-512). It holds no resource; merkle__mdigest_free is kept for callers' symmetry. */
typedef struct merkle__mdigest {
    merkle_hash_alg alg;
    size_t len;
    union {
        merkle_sha256 sha256;
        merkle_blake2b blake2b;
        merkle__md5s md5;
        merkle__sha1 sha1;
        merkle__sha512 sha512;
    } u;
} merkle__mdigest;

void merkle__mdigest_zero(merkle__mdigest *d);
merkle_status merkle__mdigest_init(merkle__mdigest *d, merkle_hash_alg alg, size_t len);
void merkle__mdigest_update(merkle__mdigest *d, const void *p, size_t n);
void merkle__mdigest_final(merkle__mdigest *d, uint8_t *out);
void merkle__mdigest_free(merkle__mdigest *d);

/* Read fd to EOF into d with buf[0..cap). Returns 0 or an errno. *size gets the bytes. */
int merkle__mdigest_fd(merkle__mdigest *d, int fd, uint8_t *buf, size_t cap, uint64_t *size);

/*
** String-keyed hash table (open addressing) mapping a byte string to a size_t. Keys are not
** copied: they must outlive the map. Hashing is SipHash-2-4 (libsodium crypto_shorthash)
** with a per-process random key: names come from manifests, i.e. from attackers.
*/
typedef struct merkle__strmap {
    struct merkle__strmap_slot *slots;
    size_t cap, count;
} merkle__strmap;

void merkle__strmap_init(merkle__strmap *m);
void merkle__strmap_free(merkle__strmap *m);
/* Insert or replace. 0, or -1 on allocation failure. */
int merkle__strmap_put(merkle__strmap *m, const char *key, size_t len, size_t value);
/* Make room for n keys in all (no rehash until then). 0, or -1 on allocation failure. */
int merkle__strmap_reserve(merkle__strmap *m, size_t n);
/* Insert key -> value unless key is there: then 1 and *found = its value (unchanged);
** 0 when inserted; -1 on allocation failure. One hash either way. */
int merkle__strmap_get_or_put(merkle__strmap *m, const char *key, size_t len, size_t value,
                              size_t *found);
/* 1 and *value when found. */
int merkle__strmap_get(const merkle__strmap *m, const char *key, size_t len, size_t *value);

/* Identity of a struct stat (merkle_file_id_of is the exported path form). */
static inline void merkle__file_id_from_stat(merkle_file_id *id, const struct stat *st)
{
    id->dev = (uint64_t)st->st_dev;
#if defined(_WIN32)
    id->ino_hi = st->st_ino_hi; /* the layer's stat (os.h): a 128-bit file id */
#else
    id->ino_hi = 0;
#endif
    id->ino_lo = (uint64_t)st->st_ino;
    id->regular = S_ISREG(st->st_mode) ? 1u : 0u;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = MERKLE_ST_MTIME_NS(st);
    id->ctime_ns = MERKLE_ST_CTIME_NS(st);
}
int merkle__file_id_equal(const merkle_file_id *a, const merkle_file_id *b);

/*
** Validation-cache lookups in batches (src/manifest/cache.c), so that a check takes the cache
** lock once per batch and stats only files the cache could vouch for. For each probe, found
** is set when the cache holds a live entry for name with this algorithm, length and digest
** equal to expected (compared in constant time); id and verified_ns are then that entry's.
** merkle__vprobe_match applies the rest of the rule to a fresh stat: the same identity and
** stat, mtime and ctime strictly older than verified_ns. hint: the caller's position in the
** cache (start with the index the first name is expected at; NULL: the cache's own).
** Thread-safe (one lock per call).
*/
typedef struct merkle__vprobe {
    const char *name;
    size_t name_len;
    merkle_hash_alg alg;
    size_t len;
    const uint8_t *expected;
    int found;
    merkle_file_id id;
    int64_t verified_ns;
    int stat_ok; /* check.c's cache pass: st holds the file's stat */
    struct stat st;
} merkle__vprobe;

/* merkle_vcache_record for many files under one lock: lock, reserve_locked (room for n more
** entries: an optimisation, may fail harmlessly), record_locked..., unlock. */
void merkle__vcache_lock(merkle_vcache *c);
void merkle__vcache_reserve_locked(merkle_vcache *c, size_t n);
void merkle__vcache_unlock(merkle_vcache *c);
merkle_status merkle__vcache_record_locked(merkle_vcache *c, const char *name,
                                           const merkle_file_id *id, merkle_hash_alg alg,
                                           const uint8_t *digest, size_t len, int64_t verified_ns);

void merkle__vcache_probe(merkle_vcache *c, merkle__vprobe *p, size_t n, size_t *hint);
int merkle__vprobe_match(const merkle__vprobe *p, const merkle_file_id *id);
/* 1 when a file with these stamps is safely older than verified_ns (the racy-file rule,
** with the moment floored to the timestamp granularity the stamps show). */
int merkle__racy_safe(const merkle_file_id *id, int64_t verified_ns);
/* 1 when the loaded cache file belongs to another user (and we are not root): a hit then
** needs the caller to be able to read the file (faccessat R_OK, AT_EACCESS). */
int merkle__vcache_foreign(const merkle_vcache *c);

#endif
