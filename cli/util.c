/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Helpers shared by the subcommands: messages, number parsing, name escaping, progress.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *cli_progname = "merkle";

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cli_progname);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_usage_error(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s %s: ", cli_progname, sub);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s %s --help' for more information.\n", cli_progname, sub);
    va_end(ap);
    return CLI_USAGE;
}

int cli_parse_jobs(const cli_cmd *cmd, const char *arg, unsigned *out)
{
    uint64_t j;
    if (cli_parse_u64(arg, &j) != 0 || j > 1024)
        return cli_cmd_usage(cmd, "-j needs a thread count 0..1024 (0 = all cores), got '%s'", arg);
    *out = (unsigned)j;
    return 0;
}

int cli_pread_full(int fd, void *buf, size_t len, uint64_t offset)
{
    uint8_t *p = (uint8_t *)buf;
    while (len) {
        ssize_t got = pread(fd, p, len, (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno ? errno : EIO;
        if (got == 0) return -1;
        p += got;
        len -= (size_t)got;
        offset += (uint64_t)got;
    }
    return 0;
}

/*
** MERKLE_INPUT_MAX: decimal digits, then optionally one of K, M, G, T (either case, powers
** of 1024). 0 when s is such a size (*v: its value, saturated at UINT64_MAX), -1 when not.
*/
static int parse_input_max(const char *s, uint64_t *v)
{
    uint64_t n = 0;
    int big = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (n > (UINT64_MAX - d) / 10)
            big = 1;
        else
            n = n * 10 + d;
    }
    unsigned shift = 0;
    switch (*p) {
    case '\0': break;
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    case 't':
    case 'T': shift = 40; break;
    default: return -1;
    }
    if (*p && p[1]) return -1;
    if (shift && n > UINT64_MAX >> shift) big = 1;
    *v = big ? UINT64_MAX : n << shift;
    return 0;
}

static size_t input_max_value;

static void input_max_init(void)
{
    const size_t top = SIZE_MAX / 2; /* cli_read_fd reads one byte past the limit */
    size_t v = CLI_INPUT_MAX_DEFAULT;
    const char *s = getenv("MERKLE_INPUT_MAX");
    uint64_t u = 0;
    if (s && *s) {
        if (parse_input_max(s, &u) != 0)
            cli_error("warning: MERKLE_INPUT_MAX=%s is not a size in bytes (digits, optionally "
                      "followed by K, M, G or T): the limit stays %zu bytes",
                      s, v);
        else if (u == 0)
            cli_error("warning: MERKLE_INPUT_MAX=%s: the limit must be at least 1 byte: it "
                      "stays %zu bytes",
                      s, v);
        else if (u > top) {
            v = top;
            cli_error("warning: MERKLE_INPUT_MAX=%s is above the largest limit: the limit is "
                      "%zu bytes",
                      s, v);
        } else
            v = (size_t)u;
    }
    input_max_value = v;
}

size_t cli_0x_prefix(const char *text, size_t n)
{
    return n >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 2 : 0;
}

const char *cli_skip_0x(const char *s)
{
    return s ? s + cli_0x_prefix(s, s[0] ? 2 : 0) : NULL;
}

size_t cli_input_max(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, input_max_init);
    return input_max_value;
}

void cli_read_limit_error(const char *name, int err, size_t max, const char *what)
{
    if (err == EFBIG)
        cli_error("%s: larger than the %zu-byte limit for %s (MERKLE_INPUT_MAX raises it)", name,
                  max, what);
    else
        cli_error("%s: %s", name, strerror(err));
}

int cli_read_fd(int fd, size_t max, char **out, size_t *len)
{
    size_t cap = 65536, used = 0;
    if (max > cli_input_max()) max = cli_input_max();
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > max) return EFBIG;
        cap = (size_t)st.st_size + 1; /* one more byte sees the end without growing */
    }
    if (cap > max) cap = max + 1;
    char *buf = malloc(cap + 1);
    if (!buf) return ENOMEM;
    for (;;) {
        if (used == cap) {
            if (cap > max) {
                free(buf);
                return EFBIG;
            }
            size_t nc = cap > max / 2 ? max + 1 : cap * 2;
            char *nb = realloc(buf, nc + 1);
            if (!nb) {
                free(buf);
                return ENOMEM;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + used, cap - used);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            return e;
        }
        if (r == 0) break;
        used += (size_t)r;
    }
    if (used > max) {
        free(buf);
        return EFBIG;
    }
    buf[used] = '\0';
    *out = buf;
    *len = used;
    return 0;
}

int cli_read_file(const char *name, size_t max, char **out, size_t *len)
{
    int fd = cli_open_input(name);
    if (fd < 0) return errno;
    int e = cli_read_fd(fd, max, out, len);
    if (fd != STDIN_FILENO) close(fd);
    return e;
}

void cli_read_error(const char *what, const char *name, int err, size_t max)
{
    if (err == EFBIG && max > cli_input_max())
        cli_error("%s%s%s: larger than the %zu-byte limit for an input file (MERKLE_INPUT_MAX "
                  "raises it)",
                  what ? what : "", what ? ": " : "", name, cli_input_max());
    else if (err == EFBIG)
        cli_error("%s%s%s: larger than %zu bytes", what ? what : "", what ? ": " : "", name, max);
    else
        cli_error("%s%s%s: %s", what ? what : "", what ? ": " : "", name, strerror(err));
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    size_t n = strlen(s);
    uint64_t mult = 1;
    char last = s[n - 1];
    if (last == 'k' || last == 'K')
        mult = 1024;
    else if (last == 'm' || last == 'M')
        mult = 1024 * 1024;
    else if (last == 'g' || last == 'G')
        mult = 1024ULL * 1024 * 1024;
    char buf[32];
    if (mult != 1) {
        if (n - 1 >= sizeof buf || n == 1) return -1;
        memcpy(buf, s, n - 1);
        buf[n - 1] = '\0';
        s = buf;
    }
    uint64_t v;
    if (cli_parse_u64(s, &v) != 0 || v == 0 || v > UINT64_MAX / mult) return -1;
    *out = v * mult;
    return 0;
}

int cli_name_needs_escape(const char *name)
{
    return strpbrk(name, "\\\n\r") != NULL;
}

void cli_fputs_escaped(FILE *out, const char *name)
{
    for (const char *p = name; *p; p++) {
        switch (*p) {
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        default: fputc(*p, out); break;
        }
    }
}

int cli_hex_0x;

static int is_hex_digit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

char *cli_json_0x(const char *in, size_t len, size_t *out_len)
{
    /* At most one prefix per 4 bytes of input (the shortest hex value is "xx"). */
    char *out = malloc(len + len / 2 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (in[i] != '"') {
            out[o++] = in[i++];
            continue;
        }
        size_t end = i + 1;
        int hex = 1;
        while (end < len && in[end] != '"') {
            if (in[end] == '\\') {
                hex = 0;
                end++;
            } else if (!is_hex_digit(in[end])) {
                hex = 0;
            }
            end++;
        }
        size_t n = end - i - 1; /* the content's length */
        size_t after = end + 1;
        while (after < len && (in[after] == ' ' || in[after] == '\n' || in[after] == '\t')) after++;
        int is_key = after < len && in[after] == ':';
        out[o++] = '"';
        if (hex && n && n % 2 == 0 && !is_key) {
            out[o++] = '0';
            out[o++] = 'x';
        }
        size_t stop = end < len ? end + 1 : len;
        memcpy(out + o, in + i + 1, stop - i - 1);
        o += stop - i - 1;
        i = stop;
    }
    *out_len = o;
    return out;
}

void cli_print_digest_line(FILE *out, const char *hex, const char *name, int binary_flag,
                           int zero_term)
{
    const char *px = cli_hex_0x ? "0x" : "";
    if (zero_term) {
        fprintf(out, "%s%s %c%s", px, hex, binary_flag ? '*' : ' ', name);
        fputc('\0', out);
        return;
    }
    int esc = cli_name_needs_escape(name);
    if (esc) fputc('\\', out);
    fputs(px, out);
    fputs(hex, out);
    fputs(binary_flag ? " *" : "  ", out);
    if (esc)
        cli_fputs_escaped(out, name);
    else
        fputs(name, out);
    fputc('\n', out);
}

int cli_open_input(const char *name)
{
    if (strcmp(name, "-") == 0) return STDIN_FILENO;
    return open(name, O_RDONLY | O_CLOEXEC);
}

unsigned cli_num_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void cli_progress_start(cli_progress *p, int quiet, uint64_t total_bytes, uint64_t total_items)
{
    memset(p, 0, sizeof *p);
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->total_bytes = total_bytes;
    p->total_items = total_items;
    p->start_ns = p->last_ns = cli_now_ns();
}

static void human(char *buf, size_t cap, double v)
{
    const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void cli_progress_update(cli_progress *p, uint64_t bytes_done, uint64_t items_done)
{
    if (!p->enabled) return;
    uint64_t now = cli_now_ns();
    /* Nothing for the first second, then at most 5 redraws a second. */
    if (now - p->start_ns < 1000000000ULL || now - p->last_ns < 200000000ULL) return;
    p->last_ns = now;
    double secs = (double)(now - p->start_ns) / 1e9;
    double rate = (double)bytes_done / secs;
    char done[32], total[32], r[32], eta[32] = "";
    human(done, sizeof done, (double)bytes_done);
    human(r, sizeof r, rate);
    if (p->total_bytes && rate > 0 && bytes_done <= p->total_bytes) {
        human(total, sizeof total, (double)p->total_bytes);
        double left = (double)(p->total_bytes - bytes_done) / rate;
        snprintf(eta, sizeof eta, " ETA %d:%02d", (int)left / 60, (int)left % 60);
    } else {
        snprintf(total, sizeof total, "?");
    }
    char items[48] = "";
    if (p->total_items)
        snprintf(items, sizeof items, "%llu/%llu files, ", (unsigned long long)items_done,
                 (unsigned long long)p->total_items);
    fprintf(stderr, "\r\033[K%s%s / %s, %s/s%s", items, done, total, r, eta);
    fflush(stderr);
    p->shown = 1;
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled && p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = 0;
}

/* fsync the directory holding name. 0 or an errno. */
int cli_fsync_parent(const char *name)
{
    const char *slash = strrchr(name, '/');
    char *dir = slash ? strndup(name, slash == name ? 1 : (size_t)(slash - name)) : strdup(".");
    if (!dir) return ENOMEM;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (dfd < 0) return errno;
    int e = fsync(dfd) == 0 ? 0 : errno;
    /* A directory that cannot be synced (EINVAL: the file system has no such thing) is not
    ** an error; EIO and the like are. */
    if (e == EINVAL || e == EROFS) e = 0;
    close(dfd);
    return e;
}

/* Put the complete temporary tmp in place as name, never over an existing file: renameat2's
** RENAME_NOREPLACE, else (a file system without it) link + unlink. 0 or an errno. */
static int place_new(const char *tmp, const char *name)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno;
#endif
    if (link(tmp, name) != 0) return errno;
    (void)unlink(tmp);
    return 0;
}

int cli_write_new_file(const char *name, const void *data, size_t len, const char *what)
{
    struct stat st;
    if (lstat(name, &st) == 0) {
        cli_error("%s: %s (%s never writes over a file)", name, strerror(EEXIST), what);
        return -1;
    }
    size_t nl = strlen(name);
    char *tmp = malloc(nl + 16);
    if (!tmp) {
        cli_error("%s: out of memory", name);
        return -1;
    }
    memcpy(tmp, name, nl);
    memcpy(tmp + nl, ".tmp.XXXXXX", 12);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot create a temporary beside it: %s", name, strerror(errno));
        free(tmp);
        return -1;
    }
    mode_t um = umask(0);
    umask(um);
    int e = fchmod(fd, 0644 & ~um) == 0 ? 0 : errno;
    const unsigned char *p = data;
    size_t off = 0;
    while (!e && off < len) {
        ssize_t w = write(fd, p + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            e = w < 0 ? errno : EIO;
        else
            off += (size_t)w;
    }
    if (!e && fsync(fd) != 0) e = errno;
    if (close(fd) != 0 && !e) e = errno;
    if (e) {
        (void)unlink(tmp);
        cli_error("%s: write error: %s", name, strerror(e));
        free(tmp);
        return -1;
    }
    e = place_new(tmp, name);
    if (e) {
        (void)unlink(tmp);
        if (e == EEXIST)
            cli_error("%s: %s (%s never writes over a file)", name, strerror(e), what);
        else
            cli_error("%s: %s", name, strerror(e));
        free(tmp);
        return -1;
    }
    free(tmp);
    e = cli_fsync_parent(name);
    if (e) {
        /* Not durable: say so, and take back the file this run created. */
        (void)unlink(name);
        cli_error("%s: cannot sync its directory: %s", name, strerror(e));
        return -1;
    }
    return 0;
}
