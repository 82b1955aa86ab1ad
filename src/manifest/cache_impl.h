/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The validation cache's parts shared by its files (internal, never installed):
**   cache.c       the index: entries, lookups, records (merkle_vcache_record/lookup/forget)
**   cache_file.c  the file format and its reading (merkle_vcache_load)
**   cache_save.c  writing it back atomically (merkle_vcache_save)
** The file format is described in cache.c's opening comment, the rules in docs/manifest.md.
*/
#ifndef MERKLE_CACHE_IMPL_H
#define MERKLE_CACHE_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/internal.h"
#include "hash/hmac_sha256.h"
#include "manifest/manifest_impl.h"

#define MAGIC     "MRKLVC01"
#define HDR_LEN   24
#define FIXED_LEN (4 + 6 * 8 + 2)
/* The longest name an entry holds (Linux's PATH_MAX - 1 on every platform: the limit of a
** name that a check can open, so record). */
#define VC_NAME_MAX 4095

/*
** An entry is its record exactly as the file stores it (without the HMAC): u32 name_len,
** name, dev, ino, size, mtime_ns, ctime_ns, verified_ns, alg, digest_len, digest. Loaded
** entries point into the file image (read into memory, never mapped: a mapped file could be
** rewritten after its checksum and HMACs were verified), recorded ones into an arena. Nothing
** is copied at load time and save writes the records as they are.
*/
typedef struct ventry {
    uint8_t *rec;
    uint32_t name_len;
    uint8_t live;
    uint8_t mine; /* recorded or forgotten by this process since the last save */
} ventry;

/* Record accessors. */
static inline const char *rec_name(const ventry *v)
{
    return (const char *)v->rec + 4;
}
static inline const uint8_t *rec_tail(const ventry *v) /* dev ... digest */
{
    return v->rec + 4 + v->name_len;
}
static inline size_t rec_size(size_t name_len, size_t dlen)
{
    return FIXED_LEN + name_len + dlen;
}

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    uint8_t data[];
} arena_chunk;

struct merkle_vcache {
    pthread_mutex_t lock;
    ventry *e;
    size_t n, cap, live;
    merkle__strmap map;
    size_t hint;        /* where find looks first: after the previous hit */
    size_t mapped;      /* entries [0, mapped) are in map (built lazily, see find) */
    uint8_t *blob;      /* loaded file image that loaded records live in */
    arena_chunk *arena; /* records written by record (newest chunk first) */
    int keyed;          /* entries carry an HMAC under the application's key */
    /* HMAC-SHA-256 under that key, precomputed (src/hash/hmac_sha256.h; the key itself is not
    ** kept. It was libsodium's portable HMAC, keyed again per entry: 2.7x the time of a whole
    ** unkeyed cached check). */
    merkle__hmac_sha256 mac;
    int dirty;        /* changed since load/save: save rewrites the file only then */
    char *saved_path; /* the file last loaded (cleanly) or saved */
    /* The cache file as this process last saw it (load or save): save merges in what another
    ** process wrote meanwhile. disk: 0 unknown, 1 absent, 2 present with identity disk_id. */
    int disk;
    merkle_file_id disk_id;
    int foreign; /* owned by another user: a hit is answered only for files we can read */
    /* As root, an unkeyed cache file that another user owns or may write was refused at load
    ** (merkle__vc_distrusted): save leaves that very file alone. */
    int distrusted;
    merkle_file_id distrusted_id;
    int64_t fs_lag; /* ns the file system's clock was behind ours at load (>= 0) */
};

/* The cache file is written through a small buffer with a running SHA-256 of the bytes: no
** copy of the whole file in memory. */
typedef struct wstream {
    int fd, err;
    size_t len;
    merkle_sha256 sha;
    uint8_t buf[64 * 1024];
} wstream;

enum { DISK_UNKNOWN = 0, DISK_ABSENT = 1, DISK_PRESENT = 2 };

/* Shared between the three files (each defined, with its comment, where it lives). */
void merkle__vc_clear(merkle_vcache *c);
int merkle__vc_ensure_map(merkle_vcache *c);
long long merkle__vc_find(merkle_vcache *c, const char *name, size_t len, size_t *hint, int *nomem);
int merkle__vc_put(merkle_vcache *c, const char *name, size_t name_len, const merkle_file_id *id,
                   uint8_t alg, const uint8_t *digest, uint8_t dlen, int64_t verified_ns, int mine);
void merkle__vc_entry_mac(const merkle_vcache *c, const uint8_t *rec, size_t len, uint8_t mac[32]);
void merkle__vc_ws_flush(wstream *w);
void merkle__vc_ws_put(wstream *w, const void *p, size_t n, int raw);
int merkle__vc_classify_magic(const uint8_t *h, size_t n);
merkle_status merkle__vc_open_file(const char *path, int *fd, struct stat *st, int *kind,
                                   merkle_error *error);
/* The len-byte cache image of fd into *out (*got bytes: fewer when the file shrank), read in
** growing steps that stop at the first entry that cannot be one. 0, an errno, or -1 (not a
** cache image). */
int merkle__vc_read_image(int fd, size_t len, uint8_t **out, size_t *got);
/* 1 when the cache file open on fd (st: its fstat) is larger than the entry count of its
** header could need, each entry at its largest (a name of VC_NAME_MAX bytes, a 64-byte
** digest, a MAC): it is then never read whole (a sparse file of gigabytes). *count gets the
** header's count (0 when unreadable). */
int merkle__vc_image_oversized(int fd, const struct stat *st, uint64_t *count);
int merkle__vc_split_path(const char *path, char **dir, const char **base);
const char *merkle__vc_parse_image(const merkle_vcache *c, uint8_t *buf, size_t len,
                                   merkle_vcache *out, size_t *rej, merkle_status *s);
int merkle__vc_merge_disk(merkle_vcache *c, const merkle_vcache *disk);
int merkle__vc_distrusted(const merkle_vcache *c, const struct stat *st, merkle_error *error,
                          const char *path);

#endif
