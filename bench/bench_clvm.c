/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** CLVM trees against clvm_wasm (clvm_rs compiled to WebAssembly, npm), in the same run.
**
** A generated block-like tree (a Chia-style block generator: N coin spends, each
** (parent_id puzzle amount solution), where every puzzle curries one shared ~300-byte
** program with one of 40 public keys and solutions pay to one of 200 puzzle hashes) of about
** 1 MB canonical size is parsed, tree-hashed and serialized with back references.
**
**   bench_clvm [--smoke] [--size BYTES] [--reps N] [--write FILE] [--peer DRIVER.js]
**
** The peer is bench/clvm_wasm_bench.js run with node on the same canonical bytes (written to a
** temporary file); both sides report process CPU time (medians), not wall time, because
** the machine is shared. The peer needs clvm_wasm installed where node finds it (scripts: see
** bench/clvm_bench.sh). Without node or clvm_wasm the peer columns say "n/a". --smoke: a
** 64 KiB tree, 3 repetitions, no peer. Figures are medians.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "merkle/sexp.h"
#include "sexp/sexp_impl.h"

static uint64_t g_rng = 0x1234567887654321ULL;
static uint64_t rnd(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void die(const char *what, merkle_status s)
{
    fprintf(stderr, "bench_clvm: %s: %s\n", what, merkle_strerror(s));
    exit(1);
}

static merkle_sexp_node atom_rand(merkle_sexp_store *st, size_t len)
{
    uint8_t buf[64];
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rnd();
    merkle_sexp_node n;
    merkle_status s = merkle_sexp_atom_new(&n, st, buf, len);
    if (s) die("atom", s);
    return n;
}

static merkle_sexp_node atom_small(merkle_sexp_store *st, unsigned v)
{
    uint8_t b = (uint8_t)v;
    merkle_sexp_node n;
    merkle_status s = merkle_sexp_atom_new(&n, st, &b, v ? 1 : 0);
    if (s) die("atom", s);
    return n;
}

static merkle_sexp_node cons(merkle_sexp_store *st, merkle_sexp_node a, merkle_sexp_node b)
{
    merkle_sexp_node n;
    merkle_status s = merkle_sexp_pair_new(&n, st, a, b);
    if (s) die("pair", s);
    return n;
}

/* (items[0] items[1] ... items[k-1]) */
static merkle_sexp_node list(merkle_sexp_store *st, const merkle_sexp_node *items, size_t k)
{
    merkle_sexp_node l = atom_small(st, 0);
    while (k--) l = cons(st, items[k], l);
    return l;
}

/* Build the block; returns its root. The shared pieces are shared nodes of the store, so
** the canonical serialization repeats them. */
static merkle_sexp_node build_block(merkle_sexp_store *st, size_t nspends)
{
    g_rng = 0x1234567887654321ULL;
    /* the shared puzzle program: 48 items of small ops, short lists and 32-byte constants */
    merkle_sexp_node items[48];
    for (size_t i = 0; i < 48; i++) {
        unsigned kind = (unsigned)(rnd() % 4);
        if (kind == 0) {
            items[i] = atom_rand(st, 32);
        } else if (kind == 1) {
            merkle_sexp_node sub[3] = { atom_small(st, 1 + (unsigned)(rnd() % 60)),
                                        atom_small(st, 2 + (unsigned)(rnd() % 30)),
                                        atom_small(st, (unsigned)(rnd() % 8)) };
            items[i] = list(st, sub, 3);
        } else {
            items[i] = atom_small(st, 1 + (unsigned)(rnd() % 60));
        }
    }
    merkle_sexp_node mod = list(st, items, 48);
    merkle_sexp_node keys[40], phs[200];
    for (size_t i = 0; i < 40; i++) keys[i] = atom_rand(st, 48);
    for (size_t i = 0; i < 200; i++) phs[i] = atom_rand(st, 32);
    merkle_sexp_node *spends = malloc(nspends * sizeof *spends);
    for (size_t i = 0; i < nspends; i++) {
        merkle_sexp_node q = atom_small(st, 1);
        /* (a (q . MOD) (c (q . PK) 1)) */
        merkle_sexp_node cq[3] = { atom_small(st, 4), cons(st, q, keys[rnd() % 40]),
                                   atom_small(st, 1) };
        merkle_sexp_node pz[3] = { atom_small(st, 2), cons(st, q, mod), list(st, cq, 3) };
        merkle_sexp_node puzzle = list(st, pz, 3);
        size_t nc = 1 + (size_t)(rnd() % 3);
        merkle_sexp_node conds[4];
        for (size_t c = 0; c < nc; c++) {
            merkle_sexp_node ph = (rnd() % 4) ? phs[rnd() % 200] : atom_rand(st, 32);
            merkle_sexp_node cc[3] = { atom_small(st, 51), ph,
                                       atom_rand(st, 1 + (size_t)(rnd() % 5)) };
            conds[c] = list(st, cc, 3);
        }
        merkle_sexp_node sol[3] = { atom_small(st, 0), cons(st, q, list(st, conds, nc)),
                                    atom_small(st, 0) };
        merkle_sexp_node sp[4] = { atom_rand(st, 32), puzzle,
                                   atom_rand(st, 1 + (size_t)(rnd() % 5)), list(st, sol, 3) };
        spends[i] = list(st, sp, 4);
    }
    merkle_sexp_node root = cons(st, atom_small(st, 1), list(st, spends, nspends));
    free(spends);
    return root;
}

static uint8_t *make_block(size_t target, size_t *len)
{
    merkle_sexp_store *st = NULL;
    if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
    uint64_t l100;
    merkle_status s = merkle_sexp_serialized_length(&l100, st, build_block(st, 100));
    if (s) die("length", s);
    size_t n = (size_t)((double)target * 100.0 / (double)l100);
    if (n < 1) n = 1;
    merkle_sexp_store_clear(st);
    merkle_sexp_node root = build_block(st, n);
    uint64_t need;
    if ((s = merkle_sexp_serialized_length(&need, st, root))) die("length", s);
    uint8_t *buf = malloc((size_t)need);
    if ((s = merkle_sexp_serialize(buf, (size_t)need, len, st, root))) die("serialize", s);
    merkle_sexp_store_free(st);
    return buf;
}

static merkle_sexp_node parse(merkle_sexp_store *st, const uint8_t *buf, size_t len)
{
    merkle_sexp_node n;
    size_t used;
    merkle_status s = merkle_sexp_parse(&n, &used, st, buf, len, MERKLE_SEXP_BACKREFS, NULL, NULL);
    if (s || used != len) die("parse", s ? s : MERKLE_ERR_FORMAT);
    return n;
}

typedef struct {
    double parse, hash, parse_hash, br_keyed, br_unkeyed;
    size_t br_len;
    char hash_hex[65];
} ours_t;

static void run_ours(const uint8_t *buf, size_t len, int reps, ours_t *r)
{
    double *t[5];
    for (int k = 0; k < 5; k++) t[k] = malloc((size_t)reps * sizeof(double));
    uint8_t h[32];
    for (int i = 0; i < reps; i++) {
        merkle_sexp_store *st = NULL;
        if (merkle_sexp_store_alloc(&st) != MERKLE_OK) abort();
        double t0 = bench_cpu_now();
        merkle_sexp_node n = parse(st, buf, len);
        double t1 = bench_cpu_now();
        merkle_status s = merkle_sexp_tree_hash(h, st, n);
        double t2 = bench_cpu_now();
        if (s) die("tree hash", s);
        t[0][i] = t1 - t0;
        t[1][i] = t2 - t1;
        t[2][i] = t2 - t0;
        /* back references, keyed and unkeyed alternately, each on a fresh parse */
        for (int mode = 0; mode < 2; mode++) {
            merkle_sexp_store_clear(st);
            n = parse(st, buf, len);
            merkle__sexp_br_opts o;
            memset(&o, 0, sizeof o);
            o.unkeyed = (mode == 1) ^ (i & 1) ? 1 : 0;
            uint8_t *out;
            size_t olen;
            double a = bench_cpu_now();
            s = merkle__sexp_serialize_backrefs(&out, &olen, st, n, 0, &o, NULL);
            double b = bench_cpu_now();
            if (s) die("backrefs", s);
            t[o.unkeyed ? 4 : 3][i] = b - a;
            r->br_len = olen;
            free(out);
        }
        merkle_sexp_store_free(st);
    }
    r->parse = bench_median(t[0], reps);
    r->hash = bench_median(t[1], reps);
    r->parse_hash = bench_median(t[2], reps);
    r->br_keyed = bench_median(t[3], reps);
    r->br_unkeyed = bench_median(t[4], reps);
    merkle_hex_encode(r->hash_hex, h, 32);
    for (int k = 0; k < 5; k++) free(t[k]);
}

typedef struct {
    int ok;
    double backref, sha256tree, jswalk, parse;
    size_t br_len;
    char hash_hex[65], version[32];
} peer_t;

static void run_peer(const char *driver, const uint8_t *buf, size_t len, int reps, peer_t *p)
{
    memset(p, 0, sizeof *p);
    char path[] = "/tmp/bench_clvm_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' %d 2>/dev/null", driver, path, reps);
    FILE *pp = popen(cmd, "r");
    if (pp) {
        char line[512], key[64], val[256];
        while (fgets(line, sizeof line, pp)) {
            if (sscanf(line, "%63s %255s", key, val) != 2) continue;
            if (!strcmp(key, "backref_ms"))
                p->backref = atof(val) / 1e3;
            else if (!strcmp(key, "sha256tree_ms"))
                p->sha256tree = atof(val) / 1e3;
            else if (!strcmp(key, "jswalk_ms"))
                p->jswalk = atof(val) / 1e3;
            else if (!strcmp(key, "parse_ms"))
                p->parse = atof(val) / 1e3;
            else if (!strcmp(key, "backref_len"))
                p->br_len = (size_t)atol(val);
            else if (!strcmp(key, "tree_hash"))
                snprintf(p->hash_hex, sizeof p->hash_hex, "%s", val);
            else if (!strcmp(key, "version"))
                snprintf(p->version, sizeof p->version, "%s", val);
            else if (!strcmp(key, "ok"))
                p->ok = 1;
        }
        if (pclose(pp) != 0) p->ok = 0;
    }
    unlink(path);
}

static void row(const char *what, double ours, double peer)
{
    if (peer > 0)
        printf("  %-34s %10.3f ms %12.3f ms %9.1fx\n", what, ours * 1e3, peer * 1e3, peer / ours);
    else
        printf("  %-34s %10.3f ms %15s %10s\n", what, ours * 1e3, "n/a", "");
}

int main(int argc, char **argv)
{
    int smoke = 0, reps = 9;
    size_t size = 1000000;
    const char *write_file = NULL, *driver = getenv("MERKLE_CLVM_WASM_DRIVER");
    char default_driver[4096];
    /* The driver sits next to this source file. */
    snprintf(default_driver, sizeof default_driver, "%s", __FILE__);
    char *slash = strrchr(default_driver, '/');
    if (slash)
        snprintf(slash + 1, sizeof default_driver - (size_t)(slash + 1 - default_driver),
                 "clvm_wasm_bench.js");
    if (!driver) driver = default_driver;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--smoke"))
            smoke = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--write") && i + 1 < argc)
            write_file = argv[++i];
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
            driver = argv[++i];
        else {
            fprintf(stderr, "usage: bench_clvm [--smoke] [--size BYTES] [--reps N] [--write FILE] "
                            "[--peer DRIVER.js]\n");
            return 2;
        }
    }
    if (smoke) {
        size = 64 * 1024;
        reps = 3;
    }
    if (reps < 1) reps = 1;
    size_t len;
    uint8_t *buf = make_block(size, &len);
    if (write_file) {
        FILE *f = fopen(write_file, "wb");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
            perror(write_file);
            return 1;
        }
        free(buf);
        return 0;
    }
    ours_t o;
    run_ours(buf, len, reps, &o);
    peer_t p;
    memset(&p, 0, sizeof p);
    if (!smoke && access(driver, R_OK) == 0) run_peer(driver, buf, len, reps, &p);
    printf("CLVM block-like tree: %zu bytes canonical, SHA-256 backend %s, medians of %d runs\n",
           len, merkle_sha256_backend(), reps);
    printf("peer: %s\n", p.ok    ? (p.version[0] ? p.version : "clvm_wasm")
                         : smoke ? "skipped (--smoke)"
                                 : "not available (node + clvm_wasm; see bench/clvm_bench.sh)");
    printf("  %-34s %13s %15s %10s\n", "operation", "merkle", "clvm_wasm", "speed-up");
    row("parse canonical", o.parse, p.ok ? p.parse : 0);
    row("tree hash (after parse)", o.hash, 0);
    row("parse + tree hash vs sha256tree", o.parse_hash, p.ok ? p.sha256tree : 0);
    row("parse + tree hash vs JS walk", o.parse_hash, p.ok ? p.jswalk : 0);
    row("back-reference serialize", o.br_keyed, p.ok ? p.backref : 0);
    printf("  %-34s %10.3f ms   keyed/unkeyed = %.3f\n", "back-reference serialize, unkeyed",
           o.br_unkeyed * 1e3, o.br_keyed / o.br_unkeyed);
    printf("back-reference length: merkle %zu bytes", o.br_len);
    if (p.ok) printf(", clvm_wasm %zu bytes", p.br_len);
    printf(" (canonical %zu)\n", len);
    printf("tree hash %s%s\n", o.hash_hex,
           p.ok ? (strcmp(p.hash_hex, o.hash_hex) == 0 ? " (clvm_wasm agrees)"
                                                       : " (clvm_wasm DISAGREES)")
                : "");
    free(buf);
    if (p.ok && strcmp(p.hash_hex, o.hash_hex) != 0) return 1;
    return 0;
}
