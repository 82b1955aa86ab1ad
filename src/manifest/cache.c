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
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "manifest/manifest_impl.h"

#define MAGIC "MRKLVC01"
#define HDR_LEN 24
#define FIXED_LEN (4 + 6 * 8 + 2)
#define ARENA_CHUNK (64 * 1024)

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
} ventry;

/* Record accessors. */
static const char *rec_name(const ventry *v)
{
    return (const char *)v->rec + 4;
}
static const uint8_t *rec_tail(const ventry *v) /* dev ... digest */
{
    return v->rec + 4 + v->name_len;
}
static size_t rec_size(size_t name_len, size_t dlen)
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
    int keyed; /* entries carry an HMAC under the application's key */
    /* HMAC-SHA-256 (RFC 2104) of that key, precomputed (the key itself is not kept): the contexts after the key's ipad and
    ** opad blocks, so that an entry's MAC costs the compressions of its own bytes and one of
    ** the outer hash, with the SHA-NI code (it was libsodium's portable HMAC, keyed again per
    ** entry: 2.7x the time of a whole unkeyed cached check). */
    merkle_sha256 mac_in, mac_out;
    int dirty;        /* changed since load/save: save rewrites the file only then */
    char *saved_path; /* the file last loaded (cleanly) or saved */
};

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
        uint8_t k[64] = {0}, pad[64];
        if (key_len > 64)
            merkle_sha256_hash(k, key, key_len);
        else
            memcpy(k, key, key_len);
        for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x36);
        merkle_sha256_init(&c->mac_in);
        merkle_sha256_update(&c->mac_in, pad, 64);
        for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x5c);
        merkle_sha256_init(&c->mac_out);
        merkle_sha256_update(&c->mac_out, pad, 64);
        sodium_memzero(k, sizeof k);
        sodium_memzero(pad, sizeof pad);
    }
    if (sodium_init() < 0) {
        sodium_memzero(c, sizeof *c);
        free(c);
        return MERKLE_ERR_UNSUPPORTED;
    }
    pthread_mutex_init(&c->lock, NULL);
    merkle__strmap_init(&c->map);
    *out = c;
    return MERKLE_OK;
}

static void clear(merkle_vcache *c)
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
static int ensure_map(merkle_vcache *c)
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
static long long find(merkle_vcache *c, const char *name, size_t len, size_t *hint, int *nomem)
{
    size_t idx;
    size_t h = hint ? *hint : SIZE_MAX;
    if (h < c->n && c->e[h].live && c->e[h].name_len == len &&
        memcmp(rec_name(&c->e[h]), name, len) == 0) {
        idx = h;
    } else {
        if (c->n == 0) return -1;
        if (ensure_map(c) != 0) {
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
    clear(c);
    free(c->saved_path);
    sodium_memzero(&c->mac_in, sizeof c->mac_in);
    sodium_memzero(&c->mac_out, sizeof c->mac_out);
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
    merkle__store_le64(p + 8, id->ino);
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
static int put(merkle_vcache *c, const char *name, size_t name_len, const merkle_file_id *id,
               uint8_t alg, const uint8_t *digest, uint8_t dlen, int64_t verified_ns)
{
    if (ensure_map(c) != 0) return -1;
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 256;
        ventry *ne = realloc(c->e, nc * sizeof *ne);
        if (!ne) return -1;
        c->e = ne;
        c->cap = nc;
    }
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
    c->dirty = 1;
    return 0;
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
    if (n > SIZE_MAX / sizeof *c->e - c->n || ensure_map(c) != 0) return;
    if (c->n + n > c->cap) {
        ventry *ne = realloc(c->e, (c->n + n) * sizeof *ne);
        if (!ne) return;
        c->e = ne;
        c->cap = c->n + n;
    }
    (void)merkle__strmap_reserve(&c->map, c->map.count + n);
}

merkle_status merkle__vcache_record_locked(merkle_vcache *c, const char *name,
                                           const merkle_file_id *id, merkle_manifest_alg alg,
                                           const uint8_t *digest, size_t len, int64_t verified_ns)
{
    size_t nl = strlen(name);
    if (nl == 0 || nl > UINT32_MAX || !merkle__manifest_len_ok(alg, len)) return MERKLE_ERR_ARG;
    return put(c, name, nl, id, (uint8_t)alg, digest, (uint8_t)len, verified_ns) ? MERKLE_ERR_NOMEM
                                                                                  : MERKLE_OK;
}

merkle_status merkle_vcache_record(merkle_vcache *c, const char *name, const merkle_file_id *id,
                                   merkle_manifest_alg alg, const uint8_t *digest, size_t len,
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
    long long idx = find(c, name, strlen(name), NULL, NULL);
    if (idx >= 0 && c->e[idx].live) {
        c->e[idx].live = 0;
        c->live--;
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
        long long idx = find(c, q->name, q->name_len, &h, NULL);
        if (idx < 0) continue;
        if (!entry_fits(&c->e[idx], q)) {
            if ((size_t)idx < c->mapped) continue;
            /* Found by position before the table knew it: a later entry of the same name
            ** (a hand-made file) would shadow it. Ask the table. */
            idx = find(c, q->name, q->name_len, NULL, NULL);
            if (idx < 0 || !entry_fits(&c->e[idx], q)) continue;
        }
        const uint8_t *t = rec_tail(&c->e[idx]);
        q->id.dev = merkle__load_le64(t);
        q->id.ino = merkle__load_le64(t + 8);
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

int merkle__vprobe_match(const merkle__vprobe *p, const merkle_file_id *id)
{
    /* Racy-file rule: a file whose mtime or ctime is not strictly older than the moment it
    ** was verified may have changed within the same clock tick. */
    return p->found && merkle__file_id_equal(&p->id, id) && id->mtime_ns < p->verified_ns &&
           id->ctime_ns < p->verified_ns;
}

int merkle_vcache_lookup(merkle_vcache *c, const char *name, const merkle_file_id *id,
                         merkle_manifest_alg alg, const uint8_t *expected, size_t len)
{
    if (!c || !name || !id || !expected) return 0;
    merkle__vprobe p;
    p.name = name;
    p.name_len = strlen(name);
    p.alg = alg;
    p.len = len;
    p.expected = expected;
    merkle__vcache_probe(c, &p, 1, NULL);
    return merkle__vprobe_match(&p, id);
}

/* ---------------------------------------------------------------- serialisation */

static void entry_mac(const merkle_vcache *c, const uint8_t *rec, size_t len, uint8_t mac[32])
{
    merkle_sha256 st = c->mac_in;
    uint8_t inner[32];
    merkle_sha256_update(&st, "merkle-vcache-v1", 16);
    merkle_sha256_update(&st, rec, len);
    merkle_sha256_final(&st, inner);
    st = c->mac_out;
    merkle_sha256_update(&st, inner, 32);
    merkle_sha256_final(&st, mac);
}

/* Remember path as in sync with the in-memory entries. */
static void set_saved(merkle_vcache *c, const char *path)
{
    pthread_mutex_lock(&c->lock);
    free(c->saved_path);
    c->saved_path = strdup(path);
    c->dirty = 0;
    pthread_mutex_unlock(&c->lock);
}

/* The cache file is written through a small buffer with a running SHA-256 of the bytes: no
** copy of the whole file in memory. */
typedef struct wstream {
    int fd, err;
    size_t len;
    merkle_sha256 sha;
    uint8_t buf[64 * 1024];
} wstream;

static void ws_flush(wstream *w)
{
    size_t off = 0;
    while (!w->err && off < w->len) {
        ssize_t r = write(w->fd, w->buf + off, w->len - off);
        if (r < 0) {
            if (errno != EINTR) w->err = errno;
            continue;
        }
        off += (size_t)r;
    }
    w->len = 0;
}

/* Append p[0..n); hashed unless raw. */
static void ws_put(wstream *w, const void *p, size_t n, int raw)
{
    if (!raw) merkle_sha256_update(&w->sha, p, n);
    const uint8_t *q = p;
    while (n && !w->err) {
        size_t k = sizeof w->buf - w->len < n ? sizeof w->buf - w->len : n;
        memcpy(w->buf + w->len, q, k);
        w->len += k;
        q += k;
        n -= k;
        if (w->len == sizeof w->buf) ws_flush(w);
    }
}

merkle_status merkle_vcache_save(merkle_vcache *c, const char *path, merkle_error *error)
{
    if (!c || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    pthread_mutex_lock(&c->lock);
    int clean = !c->dirty && c->saved_path && strcmp(c->saved_path, path) == 0;
    pthread_mutex_unlock(&c->lock);
    if (clean) return MERKLE_OK; /* nothing changed since this very file was loaded or written */
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    char *saved = strdup(path);
    wstream *w = malloc(sizeof *w);
    if (!tmp || !saved || !w) {
        free(tmp);
        free(saved);
        free(w);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    /* Locked until the file is in place, so that a record made meanwhile is not lost to
    ** the clean state set at the end. */
    pthread_mutex_lock(&c->lock);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    w->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    w->err = w->fd < 0 ? errno : 0;
    w->len = 0;
    merkle_sha256_init(&w->sha);
    if (!w->err) {
        uint8_t hdr[HDR_LEN];
        memcpy(hdr, MAGIC, 8);
        merkle__store_le64(hdr + 8, c->keyed ? 1u : 0u); /* u32 flags + u32 zero */
        merkle__store_le64(hdr + 16, c->live);
        ws_put(w, hdr, sizeof hdr, 0);
        for (size_t i = 0; i < c->n && !w->err; i++) {
            const ventry *v = &c->e[i];
            if (!v->live) continue;
            size_t size = rec_size(v->name_len, rec_tail(v)[49]);
            ws_put(w, v->rec, size, 0);
            if (c->keyed) {
                uint8_t mac[32];
                entry_mac(c, v->rec, size, mac);
                ws_put(w, mac, sizeof mac, 0);
            }
        }
        uint8_t sum[32];
        merkle_sha256_final(&w->sha, sum);
        ws_put(w, sum, sizeof sum, 1);
        ws_flush(w);
        if (!w->err && fsync(w->fd) != 0) w->err = errno;
        if (close(w->fd) != 0 && !w->err) w->err = errno;
        if (!w->err && rename(tmp, path) != 0) w->err = errno;
        if (w->err) unlink(tmp);
    }
    int e = w->err;
    if (!e) {
        free(c->saved_path);
        c->saved_path = saved;
        saved = NULL;
        c->dirty = 0;
    }
    pthread_mutex_unlock(&c->lock);
    free(w);
    free(saved);
    if (!e) {
        /* Make the rename durable: fsync the directory. */
        char *dir = malloc(plen + 2);
        if (dir) {
            memcpy(dir, path, plen + 1);
            char *slash = strrchr(dir, '/');
            if (!slash)
                strcpy(dir, ".");
            else if (slash == dir)
                dir[1] = '\0';
            else
                *slash = '\0';
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
    }
    free(tmp);
    if (e) return merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
    return MERKLE_OK;
}

static uint64_t get64(const uint8_t **p)
{
    uint64_t v = merkle__load_le64(*p);
    *p += 8;
    return v;
}

merkle_status merkle_vcache_load(merkle_vcache *c, const char *path, size_t *loaded,
                                 size_t *rejected, merkle_error *error)
{
    if (loaded) *loaded = 0;
    if (rejected) *rejected = 0;
    if (!c || !path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return MERKLE_OK;
        return merkle__fail_errno(error, errno, "%s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno ? errno : EINVAL;
        close(fd);
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0, "%s: not a regular file (%s)", path,
                            strerror(e));
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        close(fd);
        return merkle__fail(error, MERKLE_ERR_FORMAT, 0, 0, "%s: too large", path);
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        close(fd);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    size_t off = 0;
    while (off < len) {
        ssize_t r = read(fd, buf + off, len - off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        off += (size_t)r;
    }
    close(fd);
    merkle_status s = MERKLE_OK;
    const char *why = NULL;
    if (off != len || len < HDR_LEN + 32) {
        why = "truncated";
        goto bad;
    }
    uint8_t sum[32];
    merkle_sha256_hash(sum, buf, len - 32);
    if (!merkle_ct_equal(sum, buf + len - 32, 32)) {
        why = "checksum mismatch (truncated or corrupt)";
        goto bad;
    }
    if (memcmp(buf, MAGIC, 8) != 0) {
        why = "not a merkle validation cache";
        goto bad;
    }
    const uint8_t *p = buf + 8;
    uint64_t flags = get64(&p);
    if (flags > 1) {
        why = "unknown flags";
        goto bad;
    }
    int has_mac = (int)flags;
    uint64_t count = get64(&p);
    const uint8_t *end = buf + len - 32;
    /* Parse into a fresh cache first: a bad file must load nothing. */
    merkle_vcache tmp;
    memset(&tmp, 0, sizeof tmp);
    merkle__strmap_init(&tmp.map);
    size_t rej = 0;
    for (uint64_t k = 0; k < count; k++) {
        uint8_t *rec = buf + (p - buf);
        if ((size_t)(end - p) < FIXED_LEN) {
            why = "truncated entry";
            break;
        }
        uint8_t n8[8] = {0};
        memcpy(n8, p, 4);
        size_t nl = (size_t)merkle__load_le64(n8);
        if ((size_t)(end - p) - FIXED_LEN < nl) {
            why = "truncated entry";
            break;
        }
        const char *name = (const char *)p + 4;
        const uint8_t *t = p + 4 + nl;
        uint8_t alg = t[48], dlen = t[49];
        p = t + 50;
        if (!merkle__manifest_len_ok((merkle_manifest_alg)alg, dlen) || nl == 0 ||
            memchr(name, '\0', nl) || (size_t)(end - p) < (size_t)dlen + (has_mac ? 32u : 0u)) {
            why = "bad entry";
            break;
        }
        p += dlen;
        int accept = 1;
        if (c->keyed) {
            if (!has_mac) {
                accept = 0;
            } else {
                uint8_t mac[32];
                entry_mac(c, rec, (size_t)(p - rec), mac);
                accept = merkle_ct_equal(mac, p, 32);
            }
        }
        if (has_mac) p += 32;
        if (!accept) {
            rej++;
            continue;
        }
        if (tmp.n == tmp.cap) {
            size_t nc = tmp.cap ? 2 * tmp.cap : (count < 1u << 20 ? (size_t)count + 1 : 1u << 20);
            ventry *ne = realloc(tmp.e, nc * sizeof *ne);
            if (!ne) {
                why = "out of memory";
                s = MERKLE_ERR_NOMEM;
                break;
            }
            tmp.e = ne;
            tmp.cap = nc;
        }
        ventry *v = &tmp.e[tmp.n++];
        v->rec = rec;
        v->name_len = (uint32_t)nl;
        v->live = 1;
        tmp.live++;
    }
    if (!why && p != end) why = "trailing bytes";
    if (why) {
        clear(&tmp);
        goto bad;
    }
    /* Merge: loaded entries go under entries recorded in this process. */
    pthread_mutex_lock(&c->lock);
    int was_empty = c->n == 0;
    size_t got = 0;
    if (was_empty) {
        /* The usual case: adopt the parsed table as it is. */
        clear(c);
        c->e = tmp.e;
        c->n = tmp.n;
        c->cap = tmp.cap;
        c->live = tmp.live;
        c->mapped = 0;
        c->blob = buf; /* the records live in it */
        buf = NULL;
        got = tmp.n;
        memset(&tmp, 0, sizeof tmp);
        merkle__strmap_init(&tmp.map);
    }
    for (size_t i = 0; i < tmp.n; i++) {
        const ventry *v = &tmp.e[i];
        if (find(c, rec_name(v), v->name_len, NULL, NULL) >= 0) continue;
        const uint8_t *t = rec_tail(v);
        merkle_file_id id;
        id.dev = merkle__load_le64(t);
        id.ino = merkle__load_le64(t + 8);
        id.size = merkle__load_le64(t + 16);
        id.mtime_ns = (int64_t)merkle__load_le64(t + 24);
        id.ctime_ns = (int64_t)merkle__load_le64(t + 32);
        if (put(c, rec_name(v), v->name_len, &id, t[48], t + 50, t[49],
                (int64_t)merkle__load_le64(t + 40)) != 0) {
            s = MERKLE_ERR_NOMEM;
            break;
        }
        got++;
    }
    pthread_mutex_unlock(&c->lock);
    clear(&tmp);
    free(buf);
    if (was_empty && s == MERKLE_OK && rej == 0) set_saved(c, path);
    if (loaded) *loaded = got;
    if (rejected) *rejected = rej;
    if (s != MERKLE_OK) return merkle__fail(error, s, 0, 0, "out of memory");
    return MERKLE_OK;
bad:
    free(buf);
    if (s == MERKLE_OK) s = MERKLE_ERR_FORMAT;
    return merkle__fail(error, s, 0, 0, "%s: %s", path, why);
}
