/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Checksum manifests for Node.js: parse (md5sum/sha*sum/b2sum -c rules), the directory root,
** and checking a directory against a manifest, optionally with the validation cache. The
** check runs on a libuv worker thread (napi_create_async_work) and settles a Promise: the
** JavaScript thread is never blocked by file reads.
*/
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <merkle/merkle.h>

#include "addon.h"

#define NAPI_OK(call) ((call) == napi_ok)

/* A string argument (or null/undefined: *out NULL) copied into malloc'd memory. Returns 0 and
** throws when it is neither, or holds a NUL. */
static int get_opt_string(napi_env env, napi_value v, char **out)
{
    *out = NULL;
    napi_valuetype t;
    if (!NAPI_OK(napi_typeof(env, v, &t))) return 0;
    if (t == napi_null || t == napi_undefined) return 1;
    if (t != napi_string) {
        throw_type(env, "merkle: expected a string");
        return 0;
    }
    size_t n = 0;
    if (!NAPI_OK(napi_get_value_string_utf8(env, v, NULL, 0, &n))) return 0;
    char *s = malloc(n + 1);
    if (!s) {
        napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
        return 0;
    }
    if (!NAPI_OK(napi_get_value_string_utf8(env, v, s, n + 1, &n)) || strlen(s) != n) {
        free(s);
        throw_type(env, "merkle: a path must not contain NUL");
        return 0;
    }
    *out = s;
    return 1;
}

/* Parse text with (alg, digest_len); throws and returns NULL on failure. */
static merkle_manifest *parse(napi_env env, napi_value text, napi_value alg, napi_value dlen)
{
    const uint8_t *p;
    size_t len;
    uint32_t a, dl;
    if (!get_bytes(env, text, &p, &len) || !get_u32(env, alg, &a) || !get_u32(env, dlen, &dl))
        return NULL;
    merkle_manifest_parser ps;
    merkle_manifest_parser_init(&ps, (merkle_hash_alg)a, dl);
    merkle_manifest *m = NULL;
    merkle_error e;
    memset(&e, 0, sizeof e);
    merkle_status s = merkle_manifest_parse_alloc(&m, &ps, p, len, 1, &e);
    if (s != MERKLE_OK) {
        throw_status(env, s, &e);
        return NULL;
    }
    return m;
}

static int set_prop(napi_env env, napi_value obj, const char *key, napi_value v)
{
    return v && NAPI_OK(napi_set_named_property(env, obj, key, v));
}

static napi_value num(napi_env env, double d)
{
    napi_value v = NULL;
    napi_create_double(env, d, &v);
    return v;
}

static napi_value boolean(napi_env env, int b)
{
    napi_value v = NULL;
    napi_get_boolean(env, b != 0, &v);
    return v;
}

/* manifestParse(text, alg, digestLen) -> {entries, badLines, lines} */
static napi_value js_manifest_parse(napi_env env, napi_callback_info info)
{
    size_t argc = 3;
    napi_value argv[3];
    if (!NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL)) || argc < 3)
        return throw_type(env, "merkle: missing arguments");
    merkle_manifest *m = parse(env, argv[0], argv[1], argv[2]);
    if (!m) return NULL;
    napi_value res = NULL, arr, bad, v;
    size_t n = merkle_manifest_count(m), nbad = 0;
    const merkle_manifest_entry *es = merkle_manifest_entries(m);
    const uint64_t *bl = merkle_manifest_bad_lines(m, &nbad);
    int ok = NAPI_OK(napi_create_object(env, &res)) &&
             NAPI_OK(napi_create_array_with_length(env, n, &arr)) &&
             NAPI_OK(napi_create_array_with_length(env, nbad, &bad));
    for (size_t i = 0; ok && i < n; i++) {
        const merkle_manifest_entry *e = &es[i];
        napi_value o;
        ok = NAPI_OK(napi_create_object(env, &o)) &&
             NAPI_OK(napi_create_string_utf8(env, e->name, e->name_len, &v)) &&
             set_prop(env, o, "name", v) &&
             set_prop(env, o, "rawName", new_buffer(env, e->name, e->name_len)) &&
             set_prop(env, o, "line", num(env, (double)e->line)) &&
             set_prop(env, o, "alg", num(env, e->alg)) &&
             set_prop(env, o, "digest", new_buffer(env, e->digest, e->digest_len)) &&
             set_prop(env, o, "binary", boolean(env, e->binary)) &&
             set_prop(env, o, "bsd", boolean(env, e->bsd)) &&
             NAPI_OK(napi_set_element(env, arr, (uint32_t)i, o));
    }
    for (size_t i = 0; ok && i < nbad; i++)
        ok = NAPI_OK(napi_set_element(env, bad, (uint32_t)i, num(env, (double)bl[i])));
    ok = ok && set_prop(env, res, "entries", arr) && set_prop(env, res, "badLines", bad) &&
         set_prop(env, res, "lines", num(env, (double)merkle_manifest_lines(m)));
    merkle_manifest_free(m);
    if (!ok) {
        bool pending = false;
        napi_is_exception_pending(env, &pending);
        if (!pending) napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
        return NULL;
    }
    return res;
}

/* manifestDirRoot(text, alg, digestLen) -> Buffer(32); a malformed line is refused (a root
** that silently leaves a line out would vouch for less than the file says). */
static napi_value js_manifest_dirroot(napi_env env, napi_callback_info info)
{
    size_t argc = 3;
    napi_value argv[3];
    if (!NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL)) || argc < 3)
        return throw_type(env, "merkle: missing arguments");
    merkle_manifest *m = parse(env, argv[0], argv[1], argv[2]);
    if (!m) return NULL;
    size_t nbad = 0;
    const uint64_t *bl = merkle_manifest_bad_lines(m, &nbad);
    merkle_error e;
    memset(&e, 0, sizeof e);
    merkle_status s;
    uint8_t root[MERKLE_HASH_LEN];
    if (nbad > 0) {
        s = MERKLE_ERR_FORMAT;
        snprintf(e.message, sizeof e.message, "line %llu is not a checksum line",
                 (unsigned long long)bl[0]);
    } else {
        s = merkle_manifest_dirroot(root, m, &e);
    }
    merkle_manifest_free(m);
    if (s != MERKLE_OK) return throw_status(env, s, &e);
    return new_buffer(env, root, sizeof root);
}

/* ---------------------------------------------------------------- asynchronous check */

typedef struct check_job {
    napi_async_work work;
    napi_deferred deferred;
    merkle_manifest *m;
    char *dir, *cache_path;
    uint8_t *key;
    size_t key_len;
    unsigned threads;
    merkle_check_result *results;
    merkle_status status, cache_status;
    merkle_error err, cache_err;
    int cache_saved;
} check_job;

static void job_free(check_job *j)
{
    merkle_manifest_free(j->m);
    free(j->dir);
    free(j->cache_path);
    free(j->key);
    free(j->results);
    free(j);
}

/* The worker thread: no JavaScript here. */
static void check_execute(napi_env env, void *data)
{
    (void)env;
    check_job *j = data;
    size_t n = merkle_manifest_count(j->m);
    j->results = calloc(n ? n : 1, sizeof *j->results);
    if (!j->results) {
        j->status = MERKLE_ERR_NOMEM;
        return;
    }
    merkle_vcache *c = NULL;
    if (j->cache_path) {
        j->status = merkle_vcache_alloc(&c, j->key, j->key_len);
        if (j->status != MERKLE_OK) return;
        j->cache_status = merkle_vcache_load(NULL, NULL, c, j->cache_path, &j->cache_err);
        if (j->cache_status != MERKLE_OK && j->cache_status != MERKLE_ERR_FORMAT) {
            /* not a cache (ERR_UNSAFE) or unreadable: refuse, as `merkle check --cache` does */
            j->status = j->cache_status;
            j->err = j->cache_err;
            merkle_vcache_free(c);
            return;
        }
    }
    merkle_check_opts o;
    merkle_check_opts_init(&o, MERKLE_CHECK_OPTS_VERSION);
    o.dir = j->dir;
    o.threads = j->threads;
    o.cache = c;
    j->status = merkle_manifest_check(j->results, merkle_manifest_entries(j->m), n, &o, &j->err);
    if (j->status == MERKLE_OK && c) {
        merkle_error se;
        memset(&se, 0, sizeof se);
        merkle_status ss = merkle_vcache_save(c, j->cache_path, &se);
        if (ss == MERKLE_OK) {
            j->cache_saved = 1;
        } else {
            j->cache_status = ss;
            j->cache_err = se;
        }
    }
    merkle_vcache_free(c);
}

static const char *status_name(merkle_check_status s)
{
    switch (s) {
    case MERKLE_CHECK_OK: return "OK";
    case MERKLE_CHECK_MISMATCH: return "FAILED";
    case MERKLE_CHECK_MISSING: return "MISSING";
    default: return "ERROR";
    }
}

static napi_value make_error(napi_env env, merkle_status s, const merkle_error *e)
{
    napi_value msg, code, err = NULL;
    const char *text = e && e->message[0] ? e->message : merkle_strerror(s);
    char name[40];
    snprintf(name, sizeof name, "%s",
             s == MERKLE_ERR_UNSAFE  ? "MERKLE_ERR_UNSAFE"
             : s == MERKLE_ERR_IO    ? "MERKLE_ERR_IO"
             : s == MERKLE_ERR_NOMEM ? "MERKLE_ERR_NOMEM"
             : s == MERKLE_ERR_ARG   ? "MERKLE_ERR_ARG"
                                     : "MERKLE_ERR");
    if (NAPI_OK(napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg)) &&
        NAPI_OK(napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code)))
        napi_create_error(env, code, msg, &err);
    if (err) napi_set_named_property(env, err, "code", code);
    return err;
}

/* The JavaScript thread: settle the Promise. */
static void check_complete(napi_env env, napi_status st, void *data)
{
    check_job *j = data;
    if (st != napi_ok || j->status != MERKLE_OK) {
        napi_value err = make_error(env, st != napi_ok ? MERKLE_ERR_STATE : j->status, &j->err);
        napi_reject_deferred(env, j->deferred, err ? err : num(env, 0));
        napi_delete_async_work(env, j->work);
        job_free(j);
        return;
    }
    size_t n = merkle_manifest_count(j->m);
    const merkle_manifest_entry *es = merkle_manifest_entries(j->m);
    napi_value res = NULL, arr = NULL, v;
    int ok = NAPI_OK(napi_create_object(env, &res)) &&
             NAPI_OK(napi_create_array_with_length(env, n, &arr));
    for (size_t i = 0; ok && i < n; i++) {
        const merkle_check_result *r = &j->results[i];
        napi_value o;
        ok = NAPI_OK(napi_create_object(env, &o)) &&
             NAPI_OK(napi_create_string_utf8(env, es[i].name, es[i].name_len, &v)) &&
             set_prop(env, o, "name", v) &&
             NAPI_OK(napi_create_string_utf8(env, status_name(r->status), NAPI_AUTO_LENGTH, &v)) &&
             set_prop(env, o, "status", v) && set_prop(env, o, "errno", num(env, r->sys_errno)) &&
             set_prop(env, o, "fromCache", boolean(env, r->from_cache)) &&
             set_prop(env, o, "size", num(env, (double)r->size)) &&
             (r->status != MERKLE_CHECK_OK && r->status != MERKLE_CHECK_MISMATCH
                  ? 1
                  : set_prop(env, o, "digest", new_buffer(env, r->digest, es[i].digest_len))) &&
             NAPI_OK(napi_set_element(env, arr, (uint32_t)i, o));
    }
    ok = ok && set_prop(env, res, "results", arr) &&
         set_prop(env, res, "cacheSaved", boolean(env, j->cache_saved));
    if (ok && j->cache_path && j->cache_status != MERKLE_OK) {
        const char *w =
            j->cache_err.message[0] ? j->cache_err.message : merkle_strerror(j->cache_status);
        ok = NAPI_OK(napi_create_string_utf8(env, w, NAPI_AUTO_LENGTH, &v)) &&
             set_prop(env, res, "cacheWarning", v);
    }
    if (ok) {
        napi_resolve_deferred(env, j->deferred, res);
    } else {
        napi_value err = NULL, pending = NULL;
        if (NAPI_OK(napi_get_and_clear_last_exception(env, &pending))) err = pending;
        napi_value fallback = make_error(env, MERKLE_ERR_NOMEM, NULL);
        napi_valuetype t = napi_undefined;
        if (err) napi_typeof(env, err, &t);
        napi_reject_deferred(env, j->deferred, t != napi_undefined ? err : fallback);
    }
    napi_delete_async_work(env, j->work);
    job_free(j);
}

/* manifestCheck(text, alg, digestLen, dir|null, threads, cachePath|null, cacheKey|null) ->
** Promise<{results, cacheSaved, cacheWarning?}> */
static napi_value js_manifest_check(napi_env env, napi_callback_info info)
{
    size_t argc = 7;
    napi_value argv[7];
    if (!NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL)) || argc < 7)
        return throw_type(env, "merkle: missing arguments");
    check_job *j = calloc(1, sizeof *j);
    if (!j) {
        napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
        return NULL;
    }
    uint32_t threads;
    napi_valuetype kt;
    if (!(j->m = parse(env, argv[0], argv[1], argv[2])) || !get_opt_string(env, argv[3], &j->dir) ||
        !get_u32(env, argv[4], &threads) || !get_opt_string(env, argv[5], &j->cache_path) ||
        !NAPI_OK(napi_typeof(env, argv[6], &kt))) {
        job_free(j);
        return NULL;
    }
    j->threads = threads;
    if (kt != napi_null && kt != napi_undefined) {
        const uint8_t *k;
        if (!get_bytes(env, argv[6], &k, &j->key_len)) {
            job_free(j);
            return NULL;
        }
        if (j->key_len && !(j->key = malloc(j->key_len))) {
            job_free(j);
            napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
            return NULL;
        }
        if (j->key_len) memcpy(j->key, k, j->key_len);
    }
    napi_value promise, name;
    if (!NAPI_OK(napi_create_promise(env, &j->deferred, &promise)) ||
        !NAPI_OK(napi_create_string_utf8(env, "merkle.checkManifest", NAPI_AUTO_LENGTH, &name)) ||
        !NAPI_OK(
            napi_create_async_work(env, NULL, name, check_execute, check_complete, j, &j->work)) ||
        !NAPI_OK(napi_queue_async_work(env, j->work))) {
        job_free(j);
        napi_throw_error(env, "EINTERNAL", "merkle: could not start the check");
        return NULL;
    }
    return promise;
}

int merkle_node_manifest_init(napi_env env, napi_value exports)
{
    static const struct {
        const char *name;
        napi_callback fn;
    } fns[] = {
        { "manifestParse", js_manifest_parse },
        { "manifestDirRoot", js_manifest_dirroot },
        { "manifestCheck", js_manifest_check },
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        napi_value f;
        if (!NAPI_OK(
                napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f)) ||
            !NAPI_OK(napi_set_named_property(env, exports, fns[i].name, f)))
            return 0;
    }
    return 1;
}
