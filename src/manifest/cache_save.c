/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Saving the validation cache: merge what another process wrote meanwhile, write a new file
** beside the old one (a temporary of our own, never anything else), fsync, rename it over
** the old one, fsync the directory (merkle_vcache_save).
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

/* ---------------------------------------------------------------- saving */

#define TMP_MARK ".merkle-tmp-"
#define TMP_RAND 6

/* 1 when name (in the cache's directory) is a temporary of a save of the cache `base`:
** ".BASE.merkle-tmp-XXXXXX", or "BASE.tmp.PID" of versions before 0.3. */
static int is_our_tmp_name(const char *name, const char *base)
{
    size_t bl = strlen(base), nl = strlen(name), ml = strlen(TMP_MARK);
    if (nl == 1 + bl + ml + TMP_RAND && name[0] == '.' && memcmp(name + 1, base, bl) == 0 &&
        memcmp(name + 1 + bl, TMP_MARK, ml) == 0) {
        for (size_t i = 1 + bl + ml; i < nl; i++)
            if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
                  (name[i] >= 'A' && name[i] <= 'Z')))
                return 0;
        return 1;
    }
    if (nl > bl + 5 && memcmp(name, base, bl) == 0 && memcmp(name + bl, ".tmp.", 5) == 0) {
        for (size_t i = bl + 5; i < nl; i++)
            if (name[i] < '0' || name[i] > '9') return 0;
        return 1;
    }
    return 0;
}

/*
** Under the lock of the cache file: remove what writers killed in the middle of a save left
** behind (a temporary is named only for the instant between its link and its rename, or
** with no O_TMPFILE, while it is written). Only files of our naming that are regular, owned
** by us or by the cache's owner, and empty or starting with the cache magic.
*/
static void remove_stale_temporaries(const char *dir, const char *base, uid_t owner)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_our_tmp_name(de->d_name, base)) continue;
        struct stat st;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            (st.st_uid != geteuid() && st.st_uid != owner))
            continue;
        int ok = st.st_size == 0;
        if (!ok) {
            int f = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (f < 0) continue;
            uint8_t h[8];
            ok = pread(f, h, 6, 0) == 6 && memcmp(h, MAGIC, 6) == 0;
            close(f);
        }
        if (ok) (void)unlinkat(dfd, de->d_name, 0);
    }
    closedir(d);
}

/* A fresh, unique temporary name in dir for base: ".BASE.merkle-tmp-XXXXXX". */
static void tmp_name(char *out, size_t cap, const char *dir, const char *base)
{
    static const char az[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint8_t r[TMP_RAND];
    if (merkle__random_bytes(r, sizeof r) != 0) {
        /* No generator: the time and the process make the name unique enough (it is
        ** created with O_EXCL, and retried, by the caller). */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t seed =
            (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40);
        for (int i = 0; i < TMP_RAND; i++) r[i] = (uint8_t)(seed >> (8 * (i % 8)) ^ (uint64_t)i);
    }
    char x[TMP_RAND + 1];
    for (int i = 0; i < TMP_RAND; i++) x[i] = az[r[i] % 62];
    x[TMP_RAND] = '\0';
    snprintf(out, cap, "%s/.%s%s%s", dir, base, TMP_MARK, x);
}

/* Write the whole cache to fd: header, live entries (with HMACs when keyed), checksum. */
static int write_all(merkle_vcache *c, wstream *w)
{
#ifdef MERKLE_CHECKS
    size_t live = 0;
    for (size_t i = 0; i < c->n; i++) live += c->e[i].live;
    MERKLE_ASSERT(live == c->live); /* the header's count is the records that follow */
#endif
    uint8_t hdr[HDR_LEN];
    memcpy(hdr, MAGIC, 8);
    merkle__store_le64(hdr + 8, c->keyed ? 1u : 0u); /* u32 flags + u32 zero */
    merkle__store_le64(hdr + 16, c->live);
    merkle__vc_ws_put(w, hdr, sizeof hdr, 0);
    for (size_t i = 0; i < c->n && !w->err; i++) {
        const ventry *v = &c->e[i];
        if (!v->live) continue;
        size_t size = rec_size(v->name_len, rec_tail(v)[49]);
        merkle__vc_ws_put(w, v->rec, size, 0);
        if (c->keyed) {
            uint8_t mac[32];
            merkle__vc_entry_mac(c, v->rec, size, mac);
            merkle__vc_ws_put(w, mac, sizeof mac, 0);
        }
    }
    uint8_t sum[32];
    merkle_sha256_final(&w->sha, sum);
    merkle__vc_ws_put(w, sum, sizeof sum, 1);
    merkle__vc_ws_flush(w);
    return w->err;
}

/*
** Make the new cache file's contents, durable, as a named temporary in dir: an unnamed
** O_TMPFILE written and then linked to its name (so that a kill while writing leaves
** nothing), or where the file system lacks O_TMPFILE a file created under a unique name.
** old: the stat of the file being replaced (NULL: none): its mode and owner are kept.
** Returns 0 and *tfd (open), or an errno (EPERM when the owner cannot be kept).
*/
static int make_temporary(merkle_vcache *c, const char *dir, const char *base,
                          const struct stat *old, char *name, size_t cap, int *tfd, wstream *w)
{
    int named = 0, fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {
        for (int tries = 0; tries < 100 && fd < 0; tries++) {
            tmp_name(name, cap, dir, base);
            fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0 && errno != EEXIST) break;
        }
        if (fd < 0) return errno;
        named = 1;
    }
    int e = 0;
    if (old) {
        if (fchmod(fd, old->st_mode & 07777) != 0) e = errno;
        if (!e && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
            fchown(fd, old->st_uid, old->st_gid) != 0)
            e = errno == EPERM ? EPERM : errno;
    }
    if (!e) {
        w->fd = fd;
        w->err = 0;
        w->len = 0;
        merkle_sha256_init(&w->sha);
        e = write_all(c, w);
    }
    if (!e && fsync(fd) != 0) e = errno;
    if (!e && !named) {
        /* Give the unnamed file a name: through /proc (no privilege needed), else
        ** AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH). */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        for (int tries = 0; tries < 100; tries++) {
            tmp_name(name, cap, dir, base);
            int r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
#ifdef AT_EMPTY_PATH
            if (r != 0 && errno == ENOENT) r = linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
#endif
            if (r == 0) {
                named = 1;
                break;
            }
            if (errno != EEXIST) {
                e = errno;
                break;
            }
        }
        if (!e && !named) e = EEXIST;
    }
    if (e) {
        if (named) unlink(name);
        close(fd);
        return e;
    }
    *tfd = fd;
    return 0;
}

/* 0 or an errno. EINVAL/EROFS (a file system with no directory sync) count as done. */
static int fsync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return errno;
    int e = fsync(dfd) == 0 ? 0 : errno;
    close(dfd);
    return e == EINVAL || e == EROFS ? 0 : e;
}

/*
** Save: lock the cache file that is there (flock on it; a writer that waited on a file that
** has been replaced meanwhile starts again on the new one), merge what other processes saved
** since this one loaded, write a temporary in the same directory, fsync, rename it over the
** path (or link it there when there is no file yet: a file that appears meanwhile is locked
** and merged in its turn), fsync the directory. The old file is intact on any error.
*/
merkle_status merkle_vcache_save(merkle_vcache *c, const char *path, merkle_error *error)
{
    if (!c || !path || !*path) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "bad argument");
    pthread_mutex_lock(&c->lock);
    int clean = !c->dirty && c->saved_path && strcmp(c->saved_path, path) == 0;
    pthread_mutex_unlock(&c->lock);
    if (clean) return MERKLE_OK; /* nothing changed since this very file was loaded or written */
    char *dir;
    const char *base;
    size_t cap = strlen(path) + sizeof TMP_MARK + TMP_RAND + 8;
    char *tname = malloc(cap);
    wstream *w = malloc(sizeof *w);
    if (!tname || !w || merkle__vc_split_path(path, &dir, &base) != 0) {
        free(tname);
        free(w);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    merkle_status s = MERKLE_OK;
    /* Locked until the file is in place, so that a record made meanwhile is not lost to
    ** the clean state set at the end. */
    pthread_mutex_lock(&c->lock);
    for (int attempt = 0;; attempt++) {
        if (attempt == 1000) {
            s = merkle__fail(error, MERKLE_ERR_IO, 0, 0, "%s: kept changing while saved", path);
            break;
        }
        int lfd, kind = 0;
        struct stat lst;
        s = merkle__vc_open_file(path, &lfd, &lst, &kind, error);
        if (s != MERKLE_OK) break;
        merkle_error why;
        if (lfd >= 0 && merkle__vc_distrusted(c, &lst, &why, path)) {
            /* Root does not write over (nor merge from) a cache another user could forge:
            ** keeping its owner would hand that user root's results to tamper with. The
            ** file refused at load was said to be left alone: nothing more to say. */
            merkle_file_id fid;
            merkle__file_id_from_stat(&fid, &lst);
            close(lfd);
            s = c->distrusted && merkle__file_id_equal(&fid, &c->distrusted_id)
                    ? MERKLE_OK
                    : merkle__fail(error, MERKLE_ERR_UNSAFE, 0, 0, "%s", why.message);
            break;
        }
        if (lfd >= 0) {
            int r;
            do r = flock(lfd, LOCK_EX);
            while (r != 0 && errno == EINTR);
            /* (no flock on this file system: go on unlocked, as before) */
            struct stat now;
            if (lstat(path, &now) != 0 || now.st_ino != lst.st_ino || now.st_dev != lst.st_dev) {
                close(lfd); /* replaced while we waited: lock the new one */
                continue;
            }
            if (fstat(lfd, &lst) != 0) {
                s = merkle__fail_errno(error, errno, "%s: %s", path, strerror(errno));
                close(lfd);
                break;
            }
            uint8_t h[8];
            ssize_t n = pread(lfd, h, sizeof h, 0);
            if (n < 0 || merkle__vc_classify_magic(h, (size_t)n) < 0) {
                close(lfd); /* rewritten in place into something else: look again */
                continue;
            }
            merkle_file_id fid;
            merkle__file_id_from_stat(&fid, &lst);
            if (c->disk != DISK_PRESENT || !merkle__file_id_equal(&fid, &c->disk_id)) {
                /* Another process saved since we looked: take its entries. A file that does
                ** not parse (corrupt) has none to give. */
                uint8_t *img = NULL;
                size_t len = 0;
                if ((uint64_t)lst.st_size <= (uint64_t)SIZE_MAX / 2 &&
                    !merkle__vc_image_oversized(lfd, &lst, NULL) &&
                    merkle__vc_read_image(lfd, (size_t)lst.st_size, &img, &len) == 0) {
                    merkle_vcache disk;
                    memset(&disk, 0, sizeof disk);
                    merkle__strmap_init(&disk.map);
                    size_t rej = 0;
                    merkle_status ps = MERKLE_OK;
                    if (len == (size_t)lst.st_size &&
                        !merkle__vc_parse_image(c, img, len, &disk, &rej, &ps) &&
                        merkle__vc_merge_disk(c, &disk) != 0)
                        s = merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
                    merkle__vc_clear(&disk);
                    free(img);
                    if (s != MERKLE_OK) {
                        close(lfd);
                        break;
                    }
                }
            }
            remove_stale_temporaries(dir, base, lst.st_uid);
        }
        int tfd = -1;
        int e = make_temporary(c, dir, base, lfd >= 0 ? &lst : NULL, tname, cap, &tfd, w);
        if (e) {
            if (lfd >= 0) close(lfd);
            if (e == EPERM && lfd >= 0)
                s = merkle__fail_errno(error, e,
                                       "%s: belongs to uid %ld: this process cannot keep that "
                                       "owner, so it does not replace it",
                                       path, (long)lst.st_uid);
            else
                s = merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
            break;
        }
        int r;
        if (lfd >= 0) {
            r = rename(tname, path);
        } else {
            r = link(tname, path); /* fails when a file appeared: never over one */
            if (r == 0) unlink(tname);
        }
        e = r != 0 ? errno : 0;
        if (e) unlink(tname);
        struct stat ns;
        int have_ns = !e && fstat(tfd, &ns) == 0;
        close(tfd);
        if (lfd >= 0) close(lfd);
        if (e == EEXIST || e == ENOENT) continue; /* raced: start again */
        if (e) {
            s = merkle__fail_errno(error, e, "%s: %s", path, strerror(e));
            break;
        }
        e = fsync_dir(dir);
        c->disk = have_ns ? DISK_PRESENT : DISK_UNKNOWN;
        if (have_ns) merkle__file_id_from_stat(&c->disk_id, &ns);
        if (e) {
            /* In place but not known to be durable: an error, and still dirty (a later
            ** save writes it again). */
            s = merkle__fail_errno(error, e, "%s: cannot sync its directory: %s", path,
                                   strerror(e));
            break;
        }
        free(c->saved_path);
        c->saved_path = strdup(path);
        c->dirty = 0;
        for (size_t i = 0; i < c->n; i++) c->e[i].mine = 0;
        s = MERKLE_OK;
        break;
    }
    pthread_mutex_unlock(&c->lock);
    free(w);
    free(tname);
    free(dir);
    return s;
}
