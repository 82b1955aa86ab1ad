/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The platform layer (internal; docs/platforms.md). On POSIX systems it adds nothing but a
** few helpers that differ by system (aligned allocation, the processor count); on Windows
** (MinGW-w64) it supplies, in src/os/os_win.c, the calls of the file layer that the C
** runtime lacks, each with its POSIX meaning:
**   - directory descriptors: open(dir, O_DIRECTORY) returns a descriptor of our own that
**     names the directory (its path), openat/fstatat/faccessat/fdopendir resolve names
**     against it, close releases it; other descriptors are the runtime's.
**   - every open is binary (_O_BINARY: no text translation) and not inherited (O_CLOEXEC).
**   - pread with an offset (ReadFile with OVERLAPPED, the file position left alone), fsync
**     (_commit), flock (LockFileEx), link (CreateHardLinkW), rename that replaces
**     (MoveFileExW), UTF-8 paths converted to UTF-16.
**   - random bytes from BCryptGenRandom.
** Flags that have no Windows meaning (O_NOCTTY, O_NONBLOCK, O_NOFOLLOW) are 0 there; code
** that must know tests the flag (O_NOATIME, O_PATH) or the feature macro itself.
** File identity on Windows: the runtime's stat has no inode number, counts times in whole
** seconds and gives the creation time as st_ctime, so a file rewritten in place with its
** mtime set back looks unchanged to it. The layer's own struct stat (struct merkle__os_stat
** below) carries what the file's handle says: the volume serial number, the 128-bit file
** id, LastWriteTime and ChangeTime to 100 ns (docs/platforms.md).
*/
#ifndef MERKLE_OS_H
#define MERKLE_OS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Memory aligned to `align` (a power of two, a multiple of sizeof(void *)); released with
** merkle__os_aligned_free. NULL on failure. */
void *merkle__os_aligned_alloc(size_t align, size_t size);
void merkle__os_aligned_free(void *p);
/* Processors online (at least 1). */
long merkle__os_ncpu(void);
/* n random bytes from the system's generator. 0, or -1 if it failed. */
int merkle__os_random(void *buf, size_t n);

/* O_NOATIME (Linux only): 0 elsewhere, so that `flags & O_NOATIME` is simply false. */
#include <fcntl.h>
#ifndef O_NOATIME
#define O_NOATIME 0
#endif

/* A struct stat's modification and change times in nanoseconds: st_mtim (POSIX 2008, Linux,
** the BSDs), st_mtimespec (macOS), else whole seconds (Windows' runtime). CMake's
** check_struct_has_member sets MERKLE_HAVE_ST_MTIM / MERKLE_HAVE_ST_MTIMESPEC. */
#if defined(_WIN32)
#define MERKLE_ST_MTIME_NS(st) ((st)->st_mtime_ns)
#define MERKLE_ST_CTIME_NS(st) ((st)->st_ctime_ns)
#elif defined(MERKLE_HAVE_ST_MTIM)
#define MERKLE_ST_MTIME_NS(st)                                                                     \
    ((int64_t)(st)->st_mtim.tv_sec * 1000000000LL + (int64_t)(st)->st_mtim.tv_nsec)
#define MERKLE_ST_CTIME_NS(st)                                                                     \
    ((int64_t)(st)->st_ctim.tv_sec * 1000000000LL + (int64_t)(st)->st_ctim.tv_nsec)
#elif defined(MERKLE_HAVE_ST_MTIMESPEC)
#define MERKLE_ST_MTIME_NS(st)                                                                     \
    ((int64_t)(st)->st_mtimespec.tv_sec * 1000000000LL + (int64_t)(st)->st_mtimespec.tv_nsec)
#define MERKLE_ST_CTIME_NS(st)                                                                     \
    ((int64_t)(st)->st_ctimespec.tv_sec * 1000000000LL + (int64_t)(st)->st_ctimespec.tv_nsec)
#else
#define MERKLE_ST_MTIME_NS(st) ((int64_t)(st)->st_mtime * 1000000000LL)
#define MERKLE_ST_CTIME_NS(st) ((int64_t)(st)->st_ctime * 1000000000LL)
#endif

#if defined(_WIN32)
#include <dirent.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0x04000000 /* ours: not a runtime flag */
#endif
#define AT_FDCWD            (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS          0x200
#define AT_SYMLINK_FOLLOW   0x400
#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) 0
#endif
#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
#define F_GETFL 3
#define F_SETFL 4

/* The struct stat of the library's code on Windows (`stat` names it and its functions). */
struct merkle__os_stat {
    uint64_t st_dev;    /* volume serial number */
    uint64_t st_ino;    /* file id, low 64 bits (0: the file has none we could read) */
    uint64_t st_ino_hi; /* file id, high 64 bits (ReFS ids are 128 bits) */
    mode_t st_mode;
    unsigned st_nlink;
    int st_uid, st_gid;
    uint64_t st_rdev;
    int64_t st_size;
    int64_t st_atime, st_mtime, st_ctime; /* seconds (st_ctime: of the last change) */
    int64_t st_mtime_ns, st_ctime_ns;     /* LastWriteTime, ChangeTime: ns since 1970 */
};
int merkle__os_stat(const char *path, struct merkle__os_stat *st);
int merkle__os_fstat(int fd, struct merkle__os_stat *st);
#undef stat
#undef fstat
#define stat  merkle__os_stat
#define fstat merkle__os_fstat

typedef int merkle__uid_t;
#define uid_t merkle__uid_t
#define gid_t merkle__uid_t

int merkle__os_open(const char *path, int flags, ...);
int merkle__os_openat(int dirfd, const char *path, int flags, ...);
int merkle__os_close(int fd);
int merkle__os_fstatat(int dirfd, const char *path, struct merkle__os_stat *st, int flags);
int merkle__os_faccessat(int dirfd, const char *path, int mode, int flags);
/* Directory streams of UTF-8 names (_wopendir underneath): DIR is the layer's own. */
typedef struct merkle__os_dir merkle__os_dir;
merkle__os_dir *merkle__os_fdopendir(int fd);
struct dirent *merkle__os_readdir(merkle__os_dir *d);
int merkle__os_closedir(merkle__os_dir *d);
ssize_t merkle__os_pread(int fd, void *buf, size_t n, int64_t off);
int merkle__os_fsync(int fd);
int merkle__os_flock(int fd, int op);
int merkle__os_link(const char *from, const char *to);
int merkle__os_linkat(int fromdir, const char *from, int todir, const char *to, int flags);
int merkle__os_rename(const char *from, const char *to);
int merkle__os_unlinkat(int dirfd, const char *path, int flags);
int merkle__os_lstat(const char *path, struct merkle__os_stat *st);
int merkle__os_fcntl(int fd, int cmd, ...);
char *merkle__os_strndup(const char *s, size_t n);
int merkle__os_mkostemp(char *tmpl, int flags);
mode_t merkle__os_umask(mode_t m);
ssize_t merkle__os_read(int fd, void *buf, size_t n);
ssize_t merkle__os_write(int fd, const void *buf, size_t n);

#define open(...)            merkle__os_open(__VA_ARGS__)
#define openat(...)          merkle__os_openat(__VA_ARGS__)
#define close(fd)            merkle__os_close(fd)
#define fstatat              merkle__os_fstatat
#define faccessat            merkle__os_faccessat
#define fdopendir            merkle__os_fdopendir
#define closedir             merkle__os_closedir
#define readdir              merkle__os_readdir
#define DIR                  merkle__os_dir
#define strndup              merkle__os_strndup
#define mkostemp             merkle__os_mkostemp
#define umask(m)             merkle__os_umask(m)
#define _SC_NPROCESSORS_ONLN 84
#define sysconf(n)           ((void)(n), merkle__os_ncpu())
#define pread                merkle__os_pread
#define fsync                merkle__os_fsync
#define flock                merkle__os_flock
#define link                 merkle__os_link
#define linkat               merkle__os_linkat
#define rename(a, b)         merkle__os_rename(a, b)
#define lstat                merkle__os_lstat
#define unlinkat             merkle__os_unlinkat
#define fcntl(...)           merkle__os_fcntl(__VA_ARGS__)
#define read(f, b, n)        merkle__os_read(f, b, n)
#define write(f, b, n)       merkle__os_write(f, b, n)
#define fchmod(fd, m)        ((void)(fd), (void)(m), 0)
#define fchown(f, u, g)      ((void)(f), (void)(u), (void)(g), 0)
#define geteuid()            0
#define getegid()            0
#define getuid()             0
#endif /* _WIN32 */

#endif
