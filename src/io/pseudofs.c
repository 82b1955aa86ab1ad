/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Pseudo file systems (io/pseudofs.h): which file systems make their files' contents up as
** they are read, from statfs's f_type.
*/
#include "io/pseudofs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include "os/os.h"

#ifdef __linux__
/* f_type values (the kernel's include/uapi/linux/magic.h, and fs/configfs, fs/fuse for the two
** it does not export), spelled out so that the build needs no kernel headers. */
static const unsigned long pseudo_types[] = {
    0x9fa0UL,     /* PROC_SUPER_MAGIC */
    0x62656572UL, /* SYSFS_MAGIC */
    0x64626720UL, /* DEBUGFS_MAGIC */
    0x74726163UL, /* TRACEFS_MAGIC */
    0x27e0ebUL,   /* CGROUP_SUPER_MAGIC */
    0x63677270UL, /* CGROUP2_SUPER_MAGIC */
    0x73636673UL, /* SECURITYFS_MAGIC */
    0x62656570UL, /* CONFIGFS_MAGIC */
    0x65735543UL, /* FUSECTL_SUPER_MAGIC */
    0xcafe4a11UL, /* BPF_FS_MAGIC */
    0x6165676cUL, /* PSTOREFS_MAGIC */
    0xde5e81e4UL, /* EFIVARFS_MAGIC */
    0xf97cff8cUL, /* SELINUX_MAGIC */
    0x43415d53UL, /* SMACK_MAGIC */
    0x42494e4dUL, /* BINFMTFS_MAGIC */
    0x6e736673UL, /* NSFS_MAGIC */
    0x7655821UL,  /* RDTGROUP_SUPER_MAGIC (resctrl) */
    0xabba1974UL, /* XENFS_SUPER_MAGIC */
    0x1cd1UL,     /* DEVPTS_SUPER_MAGIC */
};
#endif

int merkle__fd_on_pseudo_fs(int fd)
{
#ifdef __linux__
    struct statfs sf;
    if (fstatfs(fd, &sf) != 0) return 0;
    /* f_type is signed on some ABIs: compare its low 32 bits, as the magics are. */
    unsigned long t = (unsigned long)sf.f_type & 0xffffffffUL;
    for (size_t i = 0; i < sizeof pseudo_types / sizeof pseudo_types[0]; i++)
        if (t == pseudo_types[i]) return 1;
    return 0;
#else
    (void)fd;
    return 0;
#endif
}

int merkle__pseudo_dev(merkle__pseudo_memo *m, int dirfd, const char *name, uint64_t dev)
{
    for (unsigned k = 0; k < m->n; k++)
        if (m->dev[k] == dev) return m->pseudo[k];
#ifdef __linux__
    int fd = openat(dirfd, name, O_PATH | O_CLOEXEC);
    if (fd < 0) return 1;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev;
    int pseudo = ok ? merkle__fd_on_pseudo_fs(fd) : 1;
    close(fd);
    if (!ok) return 1; /* replaced meanwhile: say nothing about dev */
#else
    (void)dirfd;
    (void)name;
    int pseudo = 0;
#endif
    unsigned k = m->n < MERKLE__PSEUDO_MEMO ? m->n++ : m->next++ % MERKLE__PSEUDO_MEMO;
    m->dev[k] = dev;
    m->pseudo[k] = (unsigned char)pseudo;
    return pseudo;
}
