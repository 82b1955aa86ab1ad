/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The platform layer's Windows side (os.h): directory descriptors, binary non-inherited
** opens of UTF-8 names, pread, fsync, flock, link, replacing rename, random bytes.
*/
#if defined(_WIN32)
#include "os/os.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* windows.h first: bcrypt.h needs its types (a block of its own, not sorted). */
#include <windows.h>

#include <bcrypt.h>

#undef open
#undef openat
#undef close
#undef fstatat
#undef faccessat
#undef fdopendir
#undef pread
#undef fsync
#undef flock
#undef link
#undef linkat
#undef rename
#undef lstat
#undef unlinkat
#undef closedir
#undef strndup
#undef mkostemp
#undef umask
#undef readdir
#undef DIR
#undef fcntl
#undef read
#undef write
#undef stat
#undef fstat

void *merkle__os_aligned_alloc(size_t align, size_t size)
{
    return _aligned_malloc(size ? size : 1, align);
}

void merkle__os_aligned_free(void *p)
{
    _aligned_free(p);
}

long merkle__os_ncpu(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwNumberOfProcessors > 0 ? (long)si.dwNumberOfProcessors : 1;
}

int merkle__os_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ULONG k = n > 0x10000000 ? 0x10000000 : (ULONG)n;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p, k, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return -1;
        p += k;
        n -= k;
    }
    return 0;
}

/* ------------------------------------------------------------------ UTF-8 names */

/* The UTF-16 form of a UTF-8 name, malloc'd; NULL with errno set. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = EILSEQ;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* ------------------------------------------------------------------ directory descriptors */

/* A directory descriptor is DIRFD_BASE + its slot; the slot holds the directory's name. */
#define DIRFD_BASE  0x40000000
#define DIRFD_SLOTS 1024
static char *g_dirs[DIRFD_SLOTS];
struct merkle__os_dir {
    _WDIR *w;
    struct dirent ent; /* the last entry, its name in UTF-8 */
};
/* the stream fdopendir made of the slot, if any */
static merkle__os_dir *g_dir_streams[DIRFD_SLOTS];
static void dir_stream_close(merkle__os_dir *d);
static pthread_mutex_t g_dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static int is_dirfd(int fd)
{
    return fd >= DIRFD_BASE && fd < DIRFD_BASE + DIRFD_SLOTS;
}

/* dir/name (name alone if dirfd is AT_FDCWD or name is absolute), malloc'd; NULL + errno. */
static char *resolve(int dirfd, const char *name)
{
    int absolute = name[0] == '/' || name[0] == '\\' ||
                   (name[0] && name[1] == ':' && (name[2] == '/' || name[2] == '\\'));
    if (dirfd == AT_FDCWD || absolute) {
        char *r = strdup(name);
        if (!r) errno = ENOMEM;
        return r;
    }
    if (!is_dirfd(dirfd)) {
        errno = is_dirfd(dirfd) || dirfd < 0 ? EBADF : ENOTDIR;
        return NULL;
    }
    pthread_mutex_lock(&g_dirs_lock);
    const char *d = g_dirs[dirfd - DIRFD_BASE];
    char *r = NULL;
    if (d) {
        size_t a = strlen(d), b = strlen(name);
        r = malloc(a + b + 2);
        if (r) {
            memcpy(r, d, a);
            r[a] = '/';
            memcpy(r + a + 1, name, b + 1);
        } else {
            errno = ENOMEM;
        }
    } else {
        errno = EBADF;
    }
    pthread_mutex_unlock(&g_dirs_lock);
    return r;
}

static int open_dir(char *path)
{
    struct _stat64 st;
    wchar_t *w = wide(path);
    if (!w) {
        free(path);
        return -1;
    }
    int r = _wstat64(w, &st);
    free(w);
    if (r != 0) {
        free(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        free(path);
        errno = ENOTDIR;
        return -1;
    }
    pthread_mutex_lock(&g_dirs_lock);
    for (int i = 0; i < DIRFD_SLOTS; i++) {
        if (!g_dirs[i]) {
            g_dirs[i] = path;
            pthread_mutex_unlock(&g_dirs_lock);
            return DIRFD_BASE + i;
        }
    }
    pthread_mutex_unlock(&g_dirs_lock);
    free(path);
    errno = EMFILE;
    return -1;
}

static int open_path(char *path, int flags, int mode)
{
    if (!path) return -1;
    if (flags & O_DIRECTORY) return open_dir(path);
    wchar_t *w = wide(path);
    free(path);
    if (!w) return -1;
    int fd = _wopen(w, flags | _O_BINARY | _O_NOINHERIT, mode);
    if (fd < 0 && errno == EACCES) {
        /* Windows refuses to open a directory as a file with "access denied"; POSIX says
         * EISDIR (at open for writing, at the first read otherwise): the same message. */
        DWORD a = GetFileAttributesW(w);
        if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) errno = EISDIR;
    }
    free(w);
    return fd;
}

int merkle__os_open(const char *path, int flags, ...)
{
    int mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    return open_path(resolve(AT_FDCWD, path), flags, mode);
}

int merkle__os_openat(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if (is_dirfd(dirfd) && strcmp(path, ".") == 0 && (flags & O_DIRECTORY)) {
        pthread_mutex_lock(&g_dirs_lock);
        char *d = g_dirs[dirfd - DIRFD_BASE] ? strdup(g_dirs[dirfd - DIRFD_BASE]) : NULL;
        pthread_mutex_unlock(&g_dirs_lock);
        if (!d) {
            errno = EBADF;
            return -1;
        }
        return open_dir(d);
    }
    return open_path(resolve(dirfd, path), flags, mode);
}

int merkle__os_close(int fd)
{
    if (!is_dirfd(fd)) return _close(fd);
    pthread_mutex_lock(&g_dirs_lock);
    char *d = g_dirs[fd - DIRFD_BASE];
    merkle__os_dir *s = g_dir_streams[fd - DIRFD_BASE];
    g_dirs[fd - DIRFD_BASE] = NULL;
    g_dir_streams[fd - DIRFD_BASE] = NULL;
    pthread_mutex_unlock(&g_dirs_lock);
    if (s) dir_stream_close(s);
    if (!d) {
        errno = EBADF;
        return -1;
    }
    free(d);
    return 0;
}

/* ------------------------------------------------------------------ file identity */

/* FILETIME ticks (100 ns since 1601) as ns since 1970. */
static int64_t ft_ns(LONGLONG t)
{
    return (t - 116444736000000000LL) * 100;
}

static int64_t ns_sec(int64_t ns)
{
    return ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000);
}

/* The runtime's stat (type and permission bits, size, whole-second times) into st, with no
** identity: st_ino 0, which the validation cache never vouches for. */
static void from_runtime(struct merkle__os_stat *st, const struct _stat64 *r)
{
    memset(st, 0, sizeof *st);
    st->st_dev = (uint64_t)r->st_dev;
    st->st_mode = r->st_mode;
    st->st_nlink = (unsigned)r->st_nlink;
    st->st_rdev = (uint64_t)r->st_rdev;
    st->st_size = r->st_size;
    st->st_atime = r->st_atime;
    st->st_mtime = r->st_mtime;
    st->st_ctime = r->st_ctime;
    st->st_mtime_ns = (int64_t)r->st_mtime * 1000000000LL;
    st->st_ctime_ns = (int64_t)r->st_ctime * 1000000000LL;
}

/* What the open handle h says: volume and file id, link count, size, LastWriteTime and
** ChangeTime (which every write and rename moves, and SetFileTime does not set). 0, or -1
** when Windows does not say (st keeps the runtime's fields). */
static int from_handle(struct merkle__os_stat *st, HANDLE h)
{
    BY_HANDLE_FILE_INFORMATION bh;
    FILE_BASIC_INFO b;
    if (h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(h, &bh) ||
        !GetFileInformationByHandleEx(h, FileBasicInfo, &b, sizeof b))
        return -1;
    /* FILE_ID_INFO (class FileIdInfo = 18, Windows 8 and later; the headers show it only to
    ** _WIN32_WINNT >= 0x0602, and Windows 7 refuses the class: then the file index). */
    struct {
        ULONGLONG VolumeSerialNumber;
        BYTE Identifier[16];
    } id;
    if (GetFileInformationByHandleEx(h, (FILE_INFO_BY_HANDLE_CLASS)18, &id, sizeof id)) {
        uint8_t raw[16];
        memcpy(raw, id.Identifier, sizeof raw);
        uint64_t lo = 0, hi = 0;
        for (int i = 7; i >= 0; i--) {
            lo = lo << 8 | raw[i];
            hi = hi << 8 | raw[8 + i];
        }
        st->st_dev = id.VolumeSerialNumber;
        st->st_ino = lo;
        st->st_ino_hi = hi;
    } else { /* before Windows 8: the 64-bit file index */
        st->st_dev = bh.dwVolumeSerialNumber;
        st->st_ino = (uint64_t)bh.nFileIndexHigh << 32 | bh.nFileIndexLow;
        st->st_ino_hi = 0;
    }
    if (st->st_ino == 0 && st->st_ino_hi == 0) st->st_ino = 1; /* an id of 0 is still one */
    st->st_nlink = bh.nNumberOfLinks;
    if (!(bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
        st->st_size = (int64_t)((uint64_t)bh.nFileSizeHigh << 32 | bh.nFileSizeLow);
    st->st_mtime_ns = ft_ns(b.LastWriteTime.QuadPart);
    st->st_ctime_ns = ft_ns(b.ChangeTime.QuadPart);
    st->st_mtime = ns_sec(st->st_mtime_ns);
    st->st_ctime = ns_sec(st->st_ctime_ns);
    st->st_atime = ns_sec(ft_ns(b.LastAccessTime.QuadPart));
    return 0;
}

static int stat_wide(const wchar_t *w, struct merkle__os_stat *st, int nofollow)
{
    struct _stat64 r;
    if (_wstat64(w, &r) != 0) return -1;
    from_runtime(st, &r);
    /* Attributes only: opens what a reader holds open, never blocks a writer. */
    HANDLE h = CreateFileW(
        w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
        NULL);
    if (h != INVALID_HANDLE_VALUE) {
        (void)from_handle(st, h);
        CloseHandle(h);
    }
    return 0;
}

int merkle__os_fstatat(int dirfd, const char *path, struct merkle__os_stat *st, int flags)
{
    char *p = resolve(dirfd, path);
    if (!p) return -1;
    wchar_t *w = wide(p);
    free(p);
    if (!w) return -1;
    int r = stat_wide(w, st, (flags & AT_SYMLINK_NOFOLLOW) != 0);
    free(w);
    return r;
}

int merkle__os_stat(const char *path, struct merkle__os_stat *st)
{
    return merkle__os_fstatat(AT_FDCWD, path, st, 0);
}

int merkle__os_fstat(int fd, struct merkle__os_stat *st)
{
    if (is_dirfd(fd)) return merkle__os_fstatat(fd, ".", st, 0);
    struct _stat64 r;
    if (_fstat64(fd, &r) != 0) return -1;
    from_runtime(st, &r);
    (void)from_handle(st, (HANDLE)_get_osfhandle(fd));
    return 0;
}

int merkle__os_faccessat(int dirfd, const char *path, int mode, int flags)
{
    (void)flags;
    char *p = resolve(dirfd, path);
    if (!p) return -1;
    wchar_t *w = wide(p);
    free(p);
    if (!w) return -1;
    int r = _waccess(w, mode & (R_OK | W_OK));
    free(w);
    return r;
}

static merkle__os_dir *dir_stream(const char *path)
{
    wchar_t *w = wide(path);
    if (!w) return NULL;
    merkle__os_dir *d = calloc(1, sizeof *d);
    if (d) d->w = _wopendir(w);
    if (!d) errno = ENOMEM;
    free(w);
    if (d && !d->w) {
        free(d);
        d = NULL;
    }
    return d;
}

static void dir_stream_close(merkle__os_dir *d)
{
    _wclosedir(d->w);
    free(d);
}

struct dirent *merkle__os_readdir(merkle__os_dir *d)
{
    struct _wdirent *we = _wreaddir(d->w);
    if (!we) return NULL;
    int n = WideCharToMultiByte(CP_UTF8, 0, we->d_name, -1, d->ent.d_name,
                                (int)sizeof d->ent.d_name, NULL, NULL);
    if (n <= 0) { /* longer than d_name in UTF-8: the listing ends there */
        errno = ENAMETOOLONG;
        return NULL;
    }
    d->ent.d_namlen = (unsigned short)(n - 1);
    d->ent.d_ino = 0;
    return &d->ent;
}

merkle__os_dir *merkle__os_fdopendir(int fd)
{
    if (!is_dirfd(fd)) {
        errno = ENOTDIR;
        return NULL;
    }
    pthread_mutex_lock(&g_dirs_lock);
    char *d = g_dirs[fd - DIRFD_BASE];
    merkle__os_dir *r = d && !g_dir_streams[fd - DIRFD_BASE] ? dir_stream(d) : NULL;
    if (!d) errno = EBADF;
    if (r) g_dir_streams[fd - DIRFD_BASE] = r; /* closedir releases the descriptor */
    pthread_mutex_unlock(&g_dirs_lock);
    return r;
}

int merkle__os_closedir(merkle__os_dir *d)
{
    pthread_mutex_lock(&g_dirs_lock);
    for (int i = 0; i < DIRFD_SLOTS; i++) {
        if (g_dir_streams[i] == d) {
            g_dir_streams[i] = NULL;
            free(g_dirs[i]);
            g_dirs[i] = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&g_dirs_lock);
    dir_stream_close(d);
    return 0;
}

/* ------------------------------------------------------------------ descriptors */

ssize_t merkle__os_pread(int fd, void *buf, size_t n, int64_t off)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE || off < 0) {
        errno = h == INVALID_HANDLE_VALUE ? EBADF : EINVAL;
        return -1;
    }
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
    ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
    DWORD got = 0;
    DWORD want = n > 0x40000000 ? 0x40000000 : (DWORD)n;
    /* ReadFile at an offset moves a synchronous handle's position: put it back, as pread
    ** leaves it (not atomic against another thread reading the same descriptor; the
    ** library does not share one descriptor between readers). */
    int64_t pos = _lseeki64(fd, 0, SEEK_CUR);
    BOOL ok = ReadFile(h, buf, want, &got, &ov);
    DWORD e = ok ? 0 : GetLastError();
    if (pos >= 0) (void)_lseeki64(fd, pos, SEEK_SET);
    if (!ok) {
        if (e == ERROR_HANDLE_EOF) return 0;
        errno = e == ERROR_ACCESS_DENIED ? EACCES : EIO;
        return -1;
    }
    return (ssize_t)got;
}

int merkle__os_fsync(int fd)
{
    if (is_dirfd(fd)) return 0; /* NTFS orders a rename's metadata itself */
    return _commit(fd);
}

int merkle__os_flock(int fd, int op)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    if (op & LOCK_UN) return UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov) ? 0 : (errno = EINVAL, -1);
    DWORD fl = (op & LOCK_EX) ? LOCKFILE_EXCLUSIVE_LOCK : 0;
    if (op & LOCK_NB) fl |= LOCKFILE_FAIL_IMMEDIATELY;
    if (LockFileEx(h, fl, 0, MAXDWORD, MAXDWORD, &ov)) return 0;
    errno = GetLastError() == ERROR_LOCK_VIOLATION ? EWOULDBLOCK : EIO;
    return -1;
}

int merkle__os_link(const char *from, const char *to)
{
    wchar_t *a = wide(from), *b = a ? wide(to) : NULL;
    int ok = a && b && CreateHardLinkW(b, a, NULL);
    if (a && b && !ok) errno = GetLastError() == ERROR_ALREADY_EXISTS ? EEXIST : EPERM;
    free(a);
    free(b);
    return ok ? 0 : -1;
}

int merkle__os_linkat(int fromdir, const char *from, int todir, const char *to, int flags)
{
    (void)flags;
    char *a = resolve(fromdir, from), *b = a ? resolve(todir, to) : NULL;
    int r = a && b ? merkle__os_link(a, b) : -1;
    free(a);
    free(b);
    return r;
}

int merkle__os_rename(const char *from, const char *to)
{
    wchar_t *a = wide(from), *b = a ? wide(to) : NULL;
    int ok = a && b && MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    if (a && b && !ok) errno = GetLastError() == ERROR_ACCESS_DENIED ? EACCES : EIO;
    free(a);
    free(b);
    return ok ? 0 : -1;
}

int merkle__os_unlinkat(int dirfd, const char *path, int flags)
{
    (void)flags;
    char *p = resolve(dirfd, path);
    if (!p) return -1;
    wchar_t *w = wide(p);
    free(p);
    if (!w) return -1;
    int r = _wunlink(w);
    free(w);
    return r;
}

int merkle__os_lstat(const char *path, struct merkle__os_stat *st)
{
    return merkle__os_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int merkle__os_fcntl(int fd, int cmd, ...)
{
    (void)fd;
    (void)cmd; /* F_GETFL / F_SETFL of O_NONBLOCK: nothing to change on Windows */
    return 0;
}

char *merkle__os_strndup(const char *s, size_t n)
{
    size_t k = strnlen(s, n);
    char *r = malloc(k + 1);
    if (!r) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(r, s, k);
    r[k] = '\0';
    return r;
}

int merkle__os_mkostemp(char *tmpl, int flags)
{
    static const char az[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(tmpl);
    if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        uint8_t r[6];
        if (merkle__os_random(r, sizeof r) != 0) {
            errno = EIO;
            return -1;
        }
        for (int i = 0; i < 6; i++) tmpl[n - 6 + (size_t)i] = az[r[i] % (sizeof az - 1)];
        int fd = merkle__os_open(tmpl, O_RDWR | O_CREAT | O_EXCL | flags, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

mode_t merkle__os_umask(mode_t m)
{
    return (mode_t)_umask(m);
}

ssize_t merkle__os_read(int fd, void *buf, size_t n)
{
    return _read(fd, buf, n > 0x40000000 ? 0x40000000u : (unsigned)n);
}

ssize_t merkle__os_write(int fd, const void *buf, size_t n)
{
    return _write(fd, buf, n > 0x40000000 ? 0x40000000u : (unsigned)n);
}
#else
typedef int merkle__os_win_unused; /* ISO C: no empty translation unit */
#endif
