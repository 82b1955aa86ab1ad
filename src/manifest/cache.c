/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Validation cache: file identity + stat + digest of files that verified OK, so that a
** later check can skip reading unchanged files. See docs/manifest.md for the rules and the
** threat model.
**
** File format (little-endian):
**   "MRKLVC01"  u32 flags (1 = entries carry an HMAC)  u32 0  u64 count
**   count x { u32 name_len, name, u64 dev, ino, size, i64 mtime_ns, ctime_ns, verified_ns,
**             u8 alg, u8 digest_len, digest, [32-byte HMAC-SHA-256 of the entry so far] }
**   32-byte SHA-256 of everything before it (detects truncation and corruption)
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"

#include "common/internal.h"
#include "common/secure.h"
#include "manifest/cache_impl.h"

#define ARENA_CHUNK (64 * 1024)

int64_t merkle_vcache_now(void)
{
    struct timespec ts;
#ifdef CLOCK_REALTIME_COARSE
    if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0)
#endif
        clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

merkle_status merkle_vcache_alloc(merkle_vcache **out, const uint8_t *key, size_t key_len)
{
    if (!out || (!key && key_len)) return MERKLE_ERR_ARG;
    merkle_vcache *c = calloc(1, sizeof *c);
    if (!c) return MERKLE_ERR_NOMEM;
    if (key_len) {
        c->keyed = 1;
        merkle__hmac_sha256_init(&c->mac, key, key_len);
    }
    pthread_mutex_init(&c->lock, NULL);
    merkle__strmap_init(&c->map);
    *out = c;
    return MERKLE_OK;
}

void merkle__vc_clear(merkle_vcache *c)
{
    while (c->arena) {
        arena_chunk *next = c->arena->next;
        free(c->arena);
        c->arena = next;
    }
    free(c->e);
    free(c->blob);
    c->blob = NULL;
    c->e = NULL;
    c->n = c->cap = c->live = c->mapped = c->hint = 0;
    merkle__strmap_free(&c->map);
}

/* size bytes of arena memory for one record, or NULL. Locked. */
static uint8_t *arena_get(merkle_vcache *c, size_t size)
{
    arena_chunk *a = c->arena;
    if (!a || a->cap - a->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        a = malloc(sizeof *a + cap);
        if (!a) return NULL;
        a->next = c->arena;
        a->used = 0;
        a->cap = cap;
        c->arena = a;
    }
    uint8_t *p = a->data + a->used;
    a->used += size;
    return p;
}

/* Put entries [mapped, n) into the map; of two entries with one name the later wins and the
** earlier is dropped. 0, or -1 on allocation failure. Locked. */
int merkle__vc_ensure_map(merkle_vcache *c)
{
    for (; c->mapped < c->n; c->mapped++) {
        ventry *v = &c->e[c->mapped];
        size_t old;
        if (merkle__strmap_get(&c->map, rec_name(v), v->name_len, &old) && c->e[old].live) {
            c->e[old].live = 0;
            c->live--;
        }
        if (merkle__strmap_put(&c->map, rec_name(v), v->name_len, c->mapped) != 0) return -1;
    }
    return 0;
}

/* Index of name, or -1. A check asks for the files in manifest order and the cache keeps
** that order, so find first tries the entry at *hint (hint NULL: never), the one after the
** previous hit: no hashing and no table in the common case. Otherwise the keyed hash table
** (built on first need; it knows only the last entry of a name, see ensure_map). *hint is
** set after the entry found. Before the table is built, the fast path may find an earlier
** entry of a name written twice (only a hand-made file has that); both are authentic and a
** lookup must still match stat and digest, so this is harmless. put and forget go through
** the table. Locked. */
long long merkle__vc_find(merkle_vcache *c, const char *name, size_t len, size_t *hint, int *nomem)
{
    size_t idx;
    size_t h = hint ? *hint : SIZE_MAX;
    if (h < c->n && c->e[h].live && c->e[h].name_len == len &&
        memcmp(rec_name(&c->e[h]), name, len) == 0) {
        idx = h;
    } else {
        if (c->n == 0) return -1;
        if (merkle__vc_ensure_map(c) != 0) {
            if (nomem) *nomem = 1;
            return -1;
        }
        if (!merkle__strmap_get(&c->map, name, len, &idx)) return -1;
    }
    if (hint) *hint = idx + 1;
    return (long long)idx;
}

void merkle_vcache_free(merkle_vcache *c)
{
    if (!c) return;
    merkle__vc_clear(c);
    free(c->saved_path);
    merkle__hmac_sha256_wipe(&c->mac);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

size_t merkle_vcache_count(const merkle_vcache *c)
{
    return c ? c->live : 0;
}

/* Write a record (without HMAC) at p. */
static void rec_write(uint8_t *p, const char *name, size_t name_len, const merkle_file_id *id,
                      int64_t verified_ns, uint8_t alg, const uint8_t *digest, uint8_t dlen)
{
    uint8_t n8[8];
    merkle__store_le64(n8, name_len);
    memcpy(p, n8, 4);
    p += 4;
    memcpy(p, name, name_len);
    p += name_len;
    merkle__store_le64(p, id->dev);
    merkle__store_le64(p + 8, id->ino_lo);
    merkle__store_le64(p + 16, id->size);
    merkle__store_le64(p + 24, (uint64_t)id->mtime_ns);
    merkle__store_le64(p + 32, (uint64_t)id->ctime_ns);
    merkle__store_le64(p + 40, (uint64_t)verified_ns);
    p[48] = alg;
    p[49] = dlen;
    memcpy(p + 50, digest, dlen);
}

/* Insert or replace under the lock. 0, or -1 on allocation failure (nothing changed). The
** new record is written to the arena first, so that the table can key on its name; when an
** entry of that name and digest length exists, the record is copied over it and the arena
** space given back. One hash of the name. */
int merkle__vc_put(merkle_vcache *c, const char *name, size_t name_len, const merkle_file_id *id,
                   uint8_t alg, const uint8_t *digest, uint8_t dlen, int64_t verified_ns, int mine)
{
    if (merkle__vc_ensure_map(c) != 0) return -1;
    if (merkle__grow(&c->e, &c->cap, c->n + 1, sizeof *c->e) != 0) return -1;
    size_t size = rec_size(name_len, dlen);
    uint8_t *r = arena_get(c, size);
    if (!r) return -1;
    rec_write(r, name, name_len, id, verified_ns, alg, digest, dlen);
    size_t idx;
    int f = merkle__strmap_get_or_put(&c->map, (const char *)r + 4, name_len, c->n, &idx);
    if (f < 0) {
        c->arena->used -= size;
        return -1;
    }
    ventry *v;
    if (f == 1) {
        v = &c->e[idx];
        if (rec_tail(v)[49] == dlen) {
            memcpy(v->rec, r, size); /* same name, same length: same size */
            c->arena->used -= size;
        } else {
            v->rec = r; /* the table keeps the old name bytes, valid until clear */
        }
        if (!v->live) c->live++;
    } else {
        v = &c->e[c->n++];
        c->mapped = c->n;
        v->rec = r;
        v->name_len = (uint32_t)name_len;
        c->live++;
    }
    v->live = 1;
    v->mine = (uint8_t)mine;
    c->dirty = 1;
    MERKLE_ASSERT(c->live <= c->n && c->mapped <= c->n && c->n <= c->cap);
    return 0;
}

int merkle__vcache_foreign(const merkle_vcache *c)
{
    return c->foreign;
}

void merkle__vcache_lock(merkle_vcache *c)
{
    pthread_mutex_lock(&c->lock);
}

void merkle__vcache_unlock(merkle_vcache *c)
{
    pthread_mutex_unlock(&c->lock);
}

void merkle__vcache_reserve_locked(merkle_vcache *c, size_t n)
{
    if (n > SIZE_MAX / sizeof *c->e - c->n || merkle__vc_ensure_map(c) != 0) return;
    if (c->n + n > c->cap) { /* exactly: a batch about to be recorded */
        if (merkle__realloc_n(&c->e, c->n + n, sizeof *c->e) != 0) return;
        c->cap = c->n + n;
    }
    (void)merkle__strmap_reserve(&c->map, c->map.count + n);
}

merkle_status merkle__vcache_record_locked(merkle_vcache *c, const char *name,
                                           const merkle_file_id *id, merkle_hash_alg alg,
                                           const uint8_t *digest, size_t len, int64_t verified_ns)
{
    size_t nl = strlen(name);
    if (nl == 0 || nl > VC_NAME_MAX || !merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    /* The moment of verification on the file system's clock, where that was behind ours. */
    if (verified_ns > INT64_MIN + c->fs_lag) verified_ns -= c->fs_lag;
    return merkle__vc_put(c, name, nl, id, (uint8_t)alg, digest, (uint8_t)len, verified_ns, 1)
               ? MERKLE_ERR_NOMEM
               : MERKLE_OK;
}

merkle_status merkle_vcache_record(merkle_vcache *c, const char *name, const merkle_file_id *id,
                                   merkle_hash_alg alg, const uint8_t *digest, size_t len,
                                   int64_t verified_ns)
{
    if (!c || !name || !id || !digest) return MERKLE_ERR_ARG;
    pthread_mutex_lock(&c->lock);
    merkle_status s = merkle__vcache_record_locked(c, name, id, alg, digest, len, verified_ns);
    pthread_mutex_unlock(&c->lock);
    return s;
}

void merkle_vcache_forget(merkle_vcache *c, const char *name)
{
    if (!c || !name) return;
    pthread_mutex_lock(&c->lock);
    long long idx = merkle__vc_find(c, name, strlen(name), NULL, NULL);
    if (idx >= 0) {
        if (c->e[idx].live) c->live--;
        c->e[idx].live = 0;
        c->e[idx].mine = 1; /* a save must not bring it back from another writer's file */
        c->dirty = 1;
    }
    pthread_mutex_unlock(&c->lock);
}

/* 1 when entry v is live and holds the algorithm, length and digest of probe q. */
static int entry_fits(const ventry *v, const merkle__vprobe *q)
{
    const uint8_t *t = rec_tail(v);
    return v->live && t[48] == (uint8_t)q->alg && t[49] == q->len &&
           merkle_ct_equal(t + 50, q->expected, q->len);
}

void merkle__vcache_probe(merkle_vcache *c, merkle__vprobe *p, size_t n, size_t *hint)
{
    pthread_mutex_lock(&c->lock);
    size_t h = hint ? *hint : c->hint;
    for (size_t i = 0; i < n; i++) {
        merkle__vprobe *q = &p[i];
        q->found = 0;
        long long idx = merkle__vc_find(c, q->name, q->name_len, &h, NULL);
        if (idx < 0) continue;
        if (!entry_fits(&c->e[idx], q)) {
            if ((size_t)idx < c->mapped) continue;
            /* Found by position before the table knew it: a later entry of the same name
            ** (a hand-made file) would shadow it. Ask the table. */
            idx = merkle__vc_find(c, q->name, q->name_len, NULL, NULL);
            if (idx < 0 || !entry_fits(&c->e[idx], q)) continue;
        }
        const uint8_t *t = rec_tail(&c->e[idx]);
        q->id.dev = merkle__load_le64(t);
        q->id.ino_hi = 0;
        q->id.ino_lo = merkle__load_le64(t + 8);
        q->id.size = merkle__load_le64(t + 16);
        q->id.mtime_ns = (int64_t)merkle__load_le64(t + 24);
        q->id.ctime_ns = (int64_t)merkle__load_le64(t + 32);
        q->verified_ns = (int64_t)merkle__load_le64(t + 40);
        q->found = 1;
    }
    if (hint)
        *hint = h;
    else
        c->hint = h;
    pthread_mutex_unlock(&c->lock);
}

int merkle__racy_safe(const merkle_file_id *id, int64_t verified_ns)
{
    /* The file system's timestamp granularity, as far as these two stamps show it: both whole
    ** seconds (ext4 with 128-byte inodes, FAT, many network file systems), 10 ms, ... The
    ** moment of verification is floored to twice that (FAT's mtime counts in 2 s), so that a
    ** write later within the same tick, which leaves the stamps as they were, is never
    ** taken as older than the verification. On nanosecond file systems nothing changes
    ** (except, harmlessly, for one file in a billion with a round stamp). */
    int64_t g = 1;
    for (int64_t p = 1000; p <= 1000000000; p *= 10) {
        if (id->mtime_ns % p != 0 || id->ctime_ns % p != 0) break;
        g = 2 * p;
    }
    int64_t v = verified_ns;
    if (g > 1) v = (v >= 0 ? v / g : (v - g + 1) / g) * g;
    return id->mtime_ns < v && id->ctime_ns < v;
}

int merkle__vprobe_match(const merkle__vprobe *p, const merkle_file_id *id)
{
    /* Racy-file rule (git's "racy git"): a file whose mtime or ctime is not strictly older
    ** than the moment it was verified may have changed within the same clock tick. */
    /* A file whose identity the platform could not read (file id 0) is never vouched for. */
    return p->found && (id->ino_lo | id->ino_hi) != 0 && merkle__file_id_equal(&p->id, id) &&
           merkle__racy_safe(id, p->verified_ns);
}

int merkle_vcache_lookup(merkle_vcache *c, const char *name, const merkle_file_id *id,
                         merkle_hash_alg alg, const uint8_t *expected, size_t len)
{
    if (!c || !name || !id || !expected) return 0;
    merkle__vprobe p;
    p.name = name;
    p.name_len = strlen(name);
    p.alg = alg;
    p.len = len;
    p.expected = expected;
    merkle__vcache_probe(c, &p, 1, NULL);
    if (!merkle__vprobe_match(&p, id)) return 0;
    /* A cache of another user vouches only for files this caller can read itself. */
    return !merkle__vcache_foreign(c) || faccessat(AT_FDCWD, name, R_OK, AT_EACCESS) == 0;
}
