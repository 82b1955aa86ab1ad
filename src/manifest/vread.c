/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Verified reads: a file's bytes are handed out only after exactly those bytes were hashed
** and matched the manifest. Verified contents are kept (up to a byte budget, least recently
** used first out) keyed by the file's identity and stat, so that reading an unchanged file
** again costs an fstat.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

#include "common/internal.h"
#include "manifest/manifest_impl.h"

struct merkle_vbuf {
    atomic_size_t refs;
    uint8_t *data;
    size_t len;
    merkle_file_id id;
    int64_t verified_ns;
    size_t entry;                    /* index in the reader's entries */
    struct merkle_vbuf *prev, *next; /* LRU list (most recent at head), reader-locked */
};

typedef struct ventry {
    char *name;
    size_t name_len;
    merkle_hash_alg alg;
    uint32_t dlen;
    uint8_t digest[MERKLE_MAX_DIGEST_LEN];
    merkle_vbuf *cached; /* LRU-owned reference, or NULL */
} ventry;

struct merkle_vreader {
    pthread_mutex_t lock;
    int dirfd;
    ventry *e;
    size_t n;
    merkle__strmap map;
    size_t budget, used;
    merkle_vbuf *head, *tail;
};

void merkle_vbuf_free(merkle_vbuf *b)
{
    if (!b) return;
    if (atomic_fetch_sub(&b->refs, 1) == 1) {
        free(b->data);
        free(b);
    }
}

merkle_status merkle_vreader_alloc(merkle_vreader **out, const merkle_manifest *m, const char *dir,
                                   size_t byte_budget, merkle_error *error)
{
    if (!out || !m) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    *out = NULL;
    int dirfd = AT_FDCWD;
    if (dir) {
        dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0) {
            int e = errno;
            return merkle__fail_errno(error, e, "%s: %s", dir, strerror(e));
        }
    }
    merkle_vreader *r = calloc(1, sizeof *r);
    if (!r) {
        if (dirfd >= 0) close(dirfd);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    pthread_mutex_init(&r->lock, NULL);
    merkle__strmap_init(&r->map);
    r->dirfd = dirfd; /* owned: closed by merkle_vreader_free */
    r->budget = byte_budget;
    r->e = calloc(m->count ? m->count : 1, sizeof *r->e);
    if (!r->e) goto nomem;
    for (size_t i = 0; i < m->count; i++) {
        const merkle_manifest_entry *src = &m->entries[i];
        ventry *v = &r->e[i];
        size_t idx;
        if (merkle__strmap_get(&r->map, src->name, src->name_len, &idx)) {
            merkle_vreader_free(r);
            return merkle__fail(error, MERKLE_ERR_FORMAT, src->line, 0, "line %llu: duplicate name",
                                (unsigned long long)src->line);
        }
        v->name = malloc(src->name_len + 1);
        if (!v->name) goto nomem;
        memcpy(v->name, src->name, src->name_len + 1);
        v->name_len = src->name_len;
        v->alg = src->alg;
        v->dlen = src->digest_len;
        memcpy(v->digest, src->digest, src->digest_len);
        r->n = i + 1;
        if (merkle__strmap_put(&r->map, v->name, v->name_len, i) != 0) goto nomem;
    }
    *out = r;
    return MERKLE_OK;
nomem:
    merkle_vreader_free(r);
    return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
}

static void lru_unlink(merkle_vreader *r, merkle_vbuf *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        r->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        r->tail = b->prev;
    b->prev = b->next = NULL;
}

static void lru_push_front(merkle_vreader *r, merkle_vbuf *b)
{
    b->prev = NULL;
    b->next = r->head;
    if (r->head) r->head->prev = b;
    r->head = b;
    if (!r->tail) r->tail = b;
}

/* Drop the LRU reference of entry i's cached contents. Locked. */
static void drop_cached(merkle_vreader *r, size_t i)
{
    merkle_vbuf *b = r->e[i].cached;
    if (!b) return;
    lru_unlink(r, b);
    r->used -= b->len;
    r->e[i].cached = NULL;
    merkle_vbuf_free(b);
}

void merkle_vreader_free(merkle_vreader *r)
{
    if (!r) return;
    MERKLE_ASSERT(r->e || r->n == 0); /* r->n counts the entries of r->e set up so far */
    for (size_t i = 0; i < r->n; i++) {
        drop_cached(r, i);
        free(r->e[i].name);
    }
    free(r->e);
    merkle__strmap_free(&r->map);
    pthread_mutex_destroy(&r->lock);
    if (r->dirfd >= 0) close(r->dirfd);
    free(r);
}

size_t merkle_vreader_cached_bytes(merkle_vreader *r)
{
    if (!r) return 0;
    pthread_mutex_lock(&r->lock);
    size_t u = r->used;
    pthread_mutex_unlock(&r->lock);
    return u;
}

/* Read the size bytes fstat gave into a fresh buffer: one byte more is asked for, so that a
** file that grew meanwhile is noticed (EAGAIN: changed while read) rather than read on
** without bound. A file that shrank is what it is now: its bytes are hashed as read. */
static int slurp(int fd, size_t size, uint8_t **out, size_t *out_len)
{
    uint8_t *buf = malloc(size + 1);
    if (!buf) return ENOMEM;
    size_t len = 0;
    for (;;) {
        ssize_t k = read(fd, buf + len, size + 1 - len);
        if (k < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            return e;
        }
        if (k == 0) break;
        len += (size_t)k;
        if (len > size) {
            free(buf);
            return EAGAIN;
        }
    }
    *out = buf;
    *out_len = len;
    return 0;
}

merkle_status merkle_vreader_read(const uint8_t **data, size_t *len, merkle_vbuf **buf,
                                  int *from_cache, merkle_vreader *r, const char *name,
                                  merkle_error *error)
{
    if (from_cache) *from_cache = 0;
    if (!r || !name || !data || !len || !buf)
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    *data = NULL;
    *len = 0;
    *buf = NULL;
    size_t i;
    if (!merkle__strmap_get(&r->map, name, strlen(name), &i))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "%s: not in the manifest", name);
    ventry *v = &r->e[i];
    int64_t t0 = merkle_vcache_now();
    /* O_NONBLOCK: a FIFO must not block the open; only regular files are read (a device
    ** such as /dev/zero would be read until memory runs out). */
    int fd = openat(r->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return merkle__fail_errno(error, errno, "%s: %s", name, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return merkle__fail_errno(error, e, "%s: %s", name, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return merkle__fail_errno(error, S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
                                  "%s: not a regular file", name);
    }
    merkle_file_id id;
    merkle__file_id_from_stat(&id, &st);

    pthread_mutex_lock(&r->lock);
    merkle_vbuf *c = v->cached;
    if (c && merkle__file_id_equal(&c->id, &id) && merkle__racy_safe(&id, c->verified_ns)) {
        atomic_fetch_add(&c->refs, 1);
        lru_unlink(r, c);
        lru_push_front(r, c);
        pthread_mutex_unlock(&r->lock);
        close(fd);
        *data = c->data;
        *len = c->len;
        *buf = c;
        if (from_cache) *from_cache = 1;
        return MERKLE_OK;
    }
    pthread_mutex_unlock(&r->lock);

    uint8_t *bytes = NULL;
    size_t n = 0;
    int e = (uint64_t)st.st_size >= SIZE_MAX ? EFBIG : slurp(fd, (size_t)st.st_size, &bytes, &n);
    close(fd);
    if (e == ENOMEM) return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    if (e == EAGAIN) return merkle__fail_errno(error, e, "%s: changed while being read", name);
    if (e) return merkle__fail_errno(error, e, "%s: %s", name, strerror(e));
    uint8_t dig[MERKLE_MAX_DIGEST_LEN];
    merkle_manifest_digest(dig, v->alg, v->dlen, bytes, n);
    if (!merkle_ct_equal(dig, v->digest, v->dlen)) {
        free(bytes);
        pthread_mutex_lock(&r->lock);
        drop_cached(r, i);
        pthread_mutex_unlock(&r->lock);
        return merkle__fail(error, MERKLE_ERR_VERIFY, 0, 0,
                            "%s: contents do not match the manifest", name);
    }
    merkle_vbuf *b = calloc(1, sizeof *b);
    if (!b) {
        free(bytes);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    atomic_init(&b->refs, 1);
    b->data = bytes;
    b->len = n;
    b->id = id;
    b->verified_ns = t0;
    b->entry = i;
    pthread_mutex_lock(&r->lock);
    drop_cached(r, i);
    if (n <= r->budget && n > 0) {
        atomic_fetch_add(&b->refs, 1);
        v->cached = b;
        lru_push_front(r, b);
        r->used += n;
        while (r->used > r->budget && r->tail) drop_cached(r, r->tail->entry);
    }
    pthread_mutex_unlock(&r->lock);
    *data = b->data;
    *len = b->len;
    *buf = b;
    return MERKLE_OK;
}
