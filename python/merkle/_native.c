/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle._native: the compiled binding of libmerkle. It includes <merkle/...> and calls the
** library directly, so the compiler checks every declaration. Built by CMake (MERKLE_BUILD_PYTHON,
** for the ctest Python tests) and by pip install (python/merkle_build.py).
**
** It defines the functions, not fast paths of other functions: merkle.root, merkle.leaf_hash
** and the base class of merkle.Trie (put, __setitem__) are these objects; nothing is patched
** at import. Errors are the package's own: MerkleError from merkle._lib (built by calling
** it), TypeError with the messages of the Python layer.
**
**   root(data, leaf_size=None, profile="rfc6962", hash=None, threads=None) -> bytes
**   leaf_hash(data, hash="sha256") -> bytes
**   ... and the parts in _native_<part>.c (see _native.h): TrieBase in _native_trie.c.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <merkle/hash.h>
#include <merkle/tree.h>

#include "_native.h"

static PyObject *lib_module; /* merkle._lib, imported on first error */

/* Raise merkle._lib.MerkleError(status, detail, what=what); detail/what may be NULL. */
PyObject *raise_merkle(int status, const char *detail, PyObject *what)
{
    if (!lib_module && !(lib_module = PyImport_ImportModule("merkle._lib"))) return NULL;
    PyObject *cls = PyObject_GetAttrString(lib_module, "MerkleError");
    if (!cls) return NULL;
    PyObject *args = Py_BuildValue("(is)", status, detail ? detail : "");
    PyObject *kw = what ? Py_BuildValue("{sO}", "what", what) : NULL;
    PyObject *exc = NULL;
    if (args && (!what || kw)) exc = PyObject_Call(cls, args, kw);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    if (exc) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    Py_DECREF(cls);
    return NULL;
}

/*
** Python-style argument binding for METH_FASTCALL | METH_KEYWORDS: out[i] gets the object
** for names[i] (NULL when not given). The messages are those of a def with these names.
*/
int bind_args(const char *fn, const char *const *names, int nnames, int nrequired,
              PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    /* A method is named "Class.name": its counts include self, as Python's messages do. */
    int self_n = strchr(fn, '.') ? 1 : 0;
    for (int i = 0; i < nnames; i++) out[i] = NULL;
    if (nargs > nnames) {
        int hi = nnames + self_n, lo = nrequired + self_n;
        if (lo == hi)
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given",
                         fn, hi, hi == 1 ? "" : "s", nargs + self_n);
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd were given", fn, lo,
                         hi, nargs + self_n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) out[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int j = 0;
        while (j < nnames && PyUnicode_CompareWithASCIIString(name, names[j]) != 0) j++;
        if (j == nnames) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn, name);
            return -1;
        }
        if (out[j]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn,
                         names[j]);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    for (int i = 0; i < nrequired; i++) {
        if (!out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional argument: '%s'", fn,
                         names[i]);
            return -1;
        }
    }
    return 0;
}

/* A str or bytes name as a C string (borrowed from name or *keep); TypeError otherwise. */
const char *name_arg(PyObject *value, const char *what, PyObject **keep)
{
    *keep = NULL;
    if (PyBytes_Check(value)) return PyBytes_AS_STRING(value);
    if (!PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str name, got %R", what, value);
        return NULL;
    }
    *keep = PyUnicode_AsEncodedString(value, "utf-8", "strict");
    return *keep ? PyBytes_AS_STRING(*keep) : NULL;
}

int hash_arg(PyObject *value, merkle_hash_alg *out)
{
    PyObject *keep;
    const char *s = name_arg(value, "hash", &keep);
    if (!s) return -1;
    merkle_status st = merkle_hash_alg_from_name(out, s);
    Py_XDECREF(keep);
    if (st == MERKLE_OK) return 0;
    PyObject *what = PyUnicode_FromFormat("hash %R (sha256 or blake2b-256)", value);
    if (what) {
        raise_merkle(st, NULL, what);
        Py_DECREF(what);
    }
    return -1;
}

int profile_arg(PyObject *value, merkle_profile *out)
{
    PyObject *keep;
    const char *s = name_arg(value, "profile", &keep);
    if (!s) return -1;
    merkle_status st = merkle_profile_from_name(out, s);
    Py_XDECREF(keep);
    if (st == MERKLE_OK) return 0;
    PyObject *what = PyUnicode_FromFormat("profile %R (rfc6962 or sia)", value);
    if (what) {
        raise_merkle(st, NULL, what);
        Py_DECREF(what);
    }
    return -1;
}

/*
** A contiguous view of a bytes-like argument (str refused); non-contiguous buffers are copied
** once. Release with PyBuffer_Release.
*/
int data_arg(PyObject *o, const char *name, Py_buffer *view)
{
    if (PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes-like, not str (encode it first)", name);
        return -1;
    }
    if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) == 0) return 0;
    PyErr_Clear();
    /* Not a buffer: memoryview() raises its own TypeError. Not contiguous: copied once. */
    PyObject *mv = PyMemoryView_FromObject(o);
    if (!mv) return -1;
    PyObject *b = PyObject_CallMethod(mv, "tobytes", NULL);
    Py_DECREF(mv);
    if (!b) return -1;
    int r = PyObject_GetBuffer(b, view, PyBUF_SIMPLE);
    Py_DECREF(b); /* the view holds its own reference */
    return r;
}

/* A leaf size (int > 0, bool refused) with tree._resolve's messages. */
int leaf_size_arg(PyObject *o, size_t *ls)
{
    if (!PyLong_Check(o) || PyBool_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "leaf_size must be an int");
        return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow < 0 || (!overflow && v <= 0)) {
        PyObject *r = PyUnicode_FromFormat("leaf_size must be > 0, got %S", o);
        if (r) {
            const char *d = PyUnicode_AsUTF8(r);
            if (d) raise_merkle(MERKLE_ERR_ARG, d, NULL);
            Py_DECREF(r);
        }
        return -1;
    }
    if (overflow > 0 || (unsigned long long)v > SIZE_MAX) {
        PyErr_SetString(PyExc_OverflowError, "leaf_size is too large");
        return -1;
    }
    *ls = (size_t)v;
    return 0;
}

static PyObject *native_root(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "data", "leaf_size", "profile", "hash", "threads" };
    PyObject *a[5];
    if (bind_args("root", names, 5, 1, args, nargs, kwnames, a) < 0) return NULL;

    merkle_profile p = MERKLE_PROFILE_RFC6962;
    if (a[2] && profile_arg(a[2], &p) < 0) return NULL;
    merkle_hash_alg h;
    size_t ls;
    merkle_status st = merkle_profile_defaults(&h, &ls, p);
    if (st != MERKLE_OK) return raise_merkle(st, NULL, NULL);
    if (a[3] && a[3] != Py_None && hash_arg(a[3], &h) < 0) return NULL;
    if (a[1] && a[1] != Py_None && leaf_size_arg(a[1], &ls) < 0) return NULL;
    unsigned threads = 1;
    if (a[4] && a[4] != Py_None) {
        long v = -1;
        if (PyLong_Check(a[4]) && !PyBool_Check(a[4])) {
            int overflow;
            v = PyLong_AsLongAndOverflow(a[4], &overflow);
            if (v == -1 && PyErr_Occurred()) return NULL;
            if (overflow > 0) v = 1024;
        }
        if (v < 0) {
            PyErr_SetString(PyExc_TypeError, "threads must be an int >= 0 (0 = all cores)");
            return NULL;
        }
        if (v == 0) {
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            v = n > 0 ? n : 1;
        }
        threads = (unsigned)(v > 1024 ? 1024 : v);
    }
    Py_buffer view;
    if (data_arg(a[0], "data", &view) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN);
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    if (threads > 1) {
        Py_BEGIN_ALLOW_THREADS st =
            merkle_tree_root_bytes_parallel(o, p, h, ls, view.buf, (size_t)view.len, threads);
        Py_END_ALLOW_THREADS
    } else if (view.len >= NATIVE_NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS st = merkle_tree_root_bytes(o, p, h, ls, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else {
        st = merkle_tree_root_bytes(o, p, h, ls, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    if (st == MERKLE_OK) return out;
    Py_DECREF(out);
    return raise_merkle(st, NULL, NULL);
}

static PyObject *native_leaf_hash(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "data", "hash" };
    PyObject *a[2];
    if (bind_args("leaf_hash", names, 2, 1, args, nargs, kwnames, a) < 0) return NULL;
    Py_buffer view;
    if (data_arg(a[0], "data", &view) < 0) return NULL;
    merkle_hash_alg h = MERKLE_HASH_SHA256;
    if (a[1] && hash_arg(a[1], &h) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN);
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    merkle_status st;
    if (view.len >= NATIVE_NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS st = merkle_tree_leaf_hash(o, h, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else {
        st = merkle_tree_leaf_hash(o, h, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    if (st == MERKLE_OK) return out;
    Py_DECREF(out);
    return raise_merkle(st, NULL, NULL);
}

/* The profile (default rfc6962) and hash (None: the profile's) of a call, as tree._resolve. */
static int resolve_ph(PyObject *profile, PyObject *hash, merkle_profile *p, merkle_hash_alg *h,
                      size_t *ls)
{
    *p = MERKLE_PROFILE_RFC6962;
    if (profile && profile_arg(profile, p) < 0) return -1;
    size_t dl;
    merkle_status st = merkle_profile_defaults(h, &dl, *p);
    if (st != MERKLE_OK) {
        raise_merkle(st, NULL, NULL);
        return -1;
    }
    if (ls) *ls = dl;
    if (hash && hash != Py_None && hash_arg(hash, h) < 0) return -1;
    return 0;
}

/* A 32-byte digest argument (digest_arg of _lib.py): bytes(value), str refused. */
static PyObject *digest_bytes(PyObject *value, const char *name)
{
    if (PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes, not str (use bytes.fromhex)", name);
        return NULL;
    }
    PyObject *b = PyObject_CallFunctionObjArgs((PyObject *)&PyBytes_Type, value, NULL);
    if (!b) return NULL;
    if (PyBytes_GET_SIZE(b) != MERKLE_HASH_LEN) {
        char msg[96];
        PyOS_snprintf(msg, sizeof msg, "%s must be %d bytes, got %zd", name, MERKLE_HASH_LEN,
                      PyBytes_GET_SIZE(b));
        Py_DECREF(b);
        return raise_merkle(MERKLE_ERR_ARG, msg, NULL);
    }
    return b;
}

static PyObject *hash_result(merkle_status st, PyObject *out)
{
    if (st == MERKLE_OK) return out;
    Py_DECREF(out);
    return raise_merkle(st, NULL, NULL);
}

static PyObject *native_node_hash(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "left", "right", "hash" };
    PyObject *a[3];
    if (bind_args("node_hash", names, 3, 2, args, nargs, kwnames, a) < 0) return NULL;
    PyObject *l = digest_bytes(a[0], "left");
    if (!l) return NULL;
    PyObject *r = digest_bytes(a[1], "right");
    merkle_hash_alg h = MERKLE_HASH_SHA256;
    PyObject *out = NULL;
    if (r && (!a[2] || hash_arg(a[2], &h) == 0) &&
        (out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN))) {
        merkle_status st = merkle_tree_node_hash((uint8_t *)PyBytes_AS_STRING(out), h,
                                                 (const uint8_t *)PyBytes_AS_STRING(l),
                                                 (const uint8_t *)PyBytes_AS_STRING(r));
        out = hash_result(st, out);
    }
    Py_DECREF(l);
    Py_XDECREF(r);
    return out;
}

static PyObject *native_digest(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "data", "hash" };
    PyObject *a[2];
    if (bind_args("digest", names, 2, 1, args, nargs, kwnames, a) < 0) return NULL;
    Py_buffer view;
    if (data_arg(a[0], "data", &view) < 0) return NULL;
    merkle_hash_alg h = MERKLE_HASH_SHA256;
    PyObject *out = NULL;
    if ((!a[1] || hash_arg(a[1], &h) == 0) &&
        (out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN))) {
        uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
        merkle_status st;
        if (view.len >= NATIVE_NOGIL_MIN) {
            Py_BEGIN_ALLOW_THREADS st = merkle_hash(o, h, view.buf, (size_t)view.len);
            Py_END_ALLOW_THREADS
        } else {
            st = merkle_hash(o, h, view.buf, (size_t)view.len);
        }
        out = hash_result(st, out);
    }
    PyBuffer_Release(&view);
    return out;
}

static PyObject *native_empty_root(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "profile", "hash" };
    PyObject *a[2];
    if (bind_args("empty_root", names, 2, 0, args, nargs, kwnames, a) < 0) return NULL;
    merkle_profile p;
    merkle_hash_alg h;
    if (resolve_ph(a[0], a[1], &p, &h, NULL) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN);
    if (!out) return NULL;
    return hash_result(merkle_tree_empty_root((uint8_t *)PyBytes_AS_STRING(out), p, h), out);
}

static PyObject *native_root_leaves(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "leaves", "profile", "hash" };
    PyObject *a[3];
    if (bind_args("root_leaves", names, 3, 1, args, nargs, kwnames, a) < 0) return NULL;
    merkle_profile p;
    merkle_hash_alg h;
    if (resolve_ph(a[1], a[2], &p, &h, NULL) < 0) return NULL;
    PyObject *items = PyList_New(0);
    PyObject *it = items ? PyObject_GetIter(a[0]) : NULL;
    if (!it) {
        Py_XDECREF(items);
        return NULL;
    }
    PyObject *x;
    while ((x = PyIter_Next(it))) {
        PyObject *b = NULL;
        if (PyUnicode_Check(x)) {
            PyErr_SetString(PyExc_TypeError, "leaves must be bytes-like, not str");
        } else if (PyBytes_Check(x)) {
            Py_INCREF(x);
            b = x;
        } else {
            b = PyObject_CallFunctionObjArgs((PyObject *)&PyBytes_Type, x, NULL);
        }
        Py_DECREF(x);
        if (!b || PyList_Append(items, b) < 0) {
            Py_XDECREF(b);
            break;
        }
        Py_DECREF(b);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        Py_DECREF(items);
        return NULL;
    }
    size_t n = (size_t)PyList_GET_SIZE(items);
    const uint8_t **ptrs = PyMem_Malloc((n ? n : 1) * sizeof *ptrs);
    size_t *lens = PyMem_Malloc((n ? n : 1) * sizeof *lens);
    PyObject *out = NULL;
    if (!ptrs || !lens) {
        PyErr_NoMemory();
    } else if ((out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN))) {
        for (size_t i = 0; i < n; i++) {
            PyObject *b = PyList_GET_ITEM(items, (Py_ssize_t)i);
            ptrs[i] = (const uint8_t *)PyBytes_AS_STRING(b);
            lens[i] = (size_t)PyBytes_GET_SIZE(b);
        }
        uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
        merkle_status st;
        if (n >= 64) {
            Py_BEGIN_ALLOW_THREADS st = merkle_tree_root_list(o, p, h, ptrs, lens, n);
            Py_END_ALLOW_THREADS
        } else {
            st = merkle_tree_root_list(o, p, h, ptrs, lens, n);
        }
        out = hash_result(st, out);
    }
    PyMem_Free(ptrs);
    PyMem_Free(lens);
    Py_DECREF(items);
    return out;
}

/* profile_id(profile) -> int: the merkle_profile value of a profile name. */
static PyObject *native_profile_id(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "profile" };
    PyObject *a[1];
    if (bind_args("profile_id", names, 1, 1, args, nargs, kwnames, a) < 0) return NULL;
    merkle_profile p;
    if (profile_arg(a[0], &p) < 0) return NULL;
    return PyLong_FromLong((long)p);
}

/* hash_id(hash) -> int: the merkle_hash_alg value of a hash name. */
static PyObject *native_hash_id(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "hash" };
    PyObject *a[1];
    if (bind_args("hash_id", names, 1, 1, args, nargs, kwnames, a) < 0) return NULL;
    merkle_hash_alg h;
    if (hash_arg(a[0], &h) < 0) return NULL;
    return PyLong_FromLong((long)h);
}

/* hash_name(alg) -> str: the library's name of a merkle_hash_alg value. */
static PyObject *native_hash_name(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "alg" };
    PyObject *a[1];
    if (bind_args("hash_name", names, 1, 1, args, nargs, kwnames, a) < 0) return NULL;
    PyObject *n = PyNumber_Long(a[0]); /* int(alg) */
    if (!n) return NULL;
    int overflow;
    long v = PyLong_AsLongAndOverflow(n, &overflow);
    Py_DECREF(n);
    if (v == -1 && PyErr_Occurred()) return NULL;
    const char *name = NULL;
    if (!overflow && v >= INT_MIN && v <= INT_MAX) name = merkle_hash_alg_name((merkle_hash_alg)v);
    if (!name) return PyErr_Format(PyExc_ValueError, "unknown merkle_hash_alg value %R", a[0]);
    return PyUnicode_FromString(name);
}

/* profile_defaults(profile="rfc6962") -> (hash name, leaf size). */
static PyObject *native_profile_defaults(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "profile" };
    PyObject *a[1];
    if (bind_args("profile_defaults", names, 1, 0, args, nargs, kwnames, a) < 0) return NULL;
    merkle_profile p;
    merkle_hash_alg h;
    size_t ls;
    if (resolve_ph(a[0], NULL, &p, &h, &ls) < 0) return NULL;
    const char *name = merkle_hash_alg_name(h);
    if (!name) return PyErr_Format(PyExc_ValueError, "unknown merkle_hash_alg value %d", (int)h);
    return Py_BuildValue("(sn)", name, (Py_ssize_t)ls);
}

/* _resolve(profile, hash, leaf_size) -> (profile id, hash id, leaf size), defaults filled. */
static PyObject *native_resolve(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = { "profile", "hash", "leaf_size" };
    PyObject *a[3];
    if (bind_args("_resolve", names, 3, 3, args, nargs, kwnames, a) < 0) return NULL;
    merkle_profile p;
    merkle_hash_alg h;
    size_t ls;
    if (resolve_ph(a[0], a[1], &p, &h, &ls) < 0) return NULL;
    if (a[2] != Py_None && leaf_size_arg(a[2], &ls) < 0) return NULL;
    return Py_BuildValue("(iin)", (int)p, (int)h, (Py_ssize_t)ls);
}

/* ------------------------------------------------------------------ Tree */

typedef struct {
    PyObject_HEAD merkle_tree *t; /* aligned_alloc'ed: the struct is 64-byte aligned */
} TreeObject;

static void tree_dealloc(PyObject *self)
{
    TreeObject *to = (TreeObject *)self;
    free(to->t);
    Py_TYPE(self)->tp_free(self);
}

static int tree_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static const char *const names[] = { "leaf_size", "profile", "hash" };
    PyObject *a[3];
    /* The fastcall form of (args, kwds), bound with the messages of a def __init__. */
    Py_ssize_t np = PyTuple_GET_SIZE(args), nk = kwds ? PyDict_GET_SIZE(kwds) : 0;
    PyObject *flat[8];
    PyObject *kwnames = NULL;
    if (np + nk > 8) {
        PyErr_Format(PyExc_TypeError,
                     "Tree.__init__() takes from 1 to 4 positional arguments but %zd were given",
                     np + 1);
        return -1;
    }
    for (Py_ssize_t i = 0; i < np; i++) flat[i] = PyTuple_GET_ITEM(args, i);
    if (nk) {
        if (!(kwnames = PyTuple_New(nk))) return -1;
        Py_ssize_t pos = 0, k = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwds, &pos, &key, &value)) {
            Py_INCREF(key);
            PyTuple_SET_ITEM(kwnames, k, key);
            flat[np + k++] = value;
        }
    }
    int r = bind_args("Tree.__init__", names, 3, 0, flat, np, kwnames, a);
    Py_XDECREF(kwnames);
    if (r < 0) return -1;
    merkle_profile p;
    merkle_hash_alg h;
    size_t ls;
    if (resolve_ph(a[1], a[2], &p, &h, &ls) < 0) return -1;
    if (a[0] && a[0] != Py_None && leaf_size_arg(a[0], &ls) < 0) return -1;
    TreeObject *to = (TreeObject *)self;
    if (!to->t) {
        size_t align = _Alignof(merkle_tree);
        size_t size = (sizeof(merkle_tree) + align - 1) / align * align;
        if (!(to->t = aligned_alloc(align, size))) {
            PyErr_NoMemory();
            return -1;
        }
    }
    merkle_status st = merkle_tree_init(to->t, p, h, ls);
    if (st != MERKLE_OK) {
        raise_merkle(st, NULL, NULL);
        return -1;
    }
    return 0;
}

/* The builder, or MERKLE_ERR_STATE for an object whose __init__ never succeeded. */
static merkle_tree *tree_of(PyObject *self)
{
    merkle_tree *t = ((TreeObject *)self)->t;
    if (!t) raise_merkle(MERKLE_ERR_STATE, "the Tree was not initialised", NULL);
    return t;
}

static PyObject *tree_write_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = { "data" };
    PyObject *a[1];
    if (bind_args("Tree.write", names, 1, 1, args, nargs, kwnames, a) < 0) return NULL;
    merkle_tree *t = tree_of(self);
    if (!t) return NULL;
    Py_buffer view;
    if (data_arg(a[0], "data", &view) < 0) return NULL;
    merkle_status st;
    if (view.len >= NATIVE_NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS st = merkle_tree_write(t, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else {
        st = merkle_tree_write(t, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    if (st != MERKLE_OK) return raise_merkle(st, NULL, NULL);
    Py_RETURN_NONE;
}

static PyObject *tree_leaf_count_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    PyObject *none[1];
    if (bind_args("Tree.leaf_count", NULL, 0, 0, args, nargs, kwnames, none) < 0) return NULL;
    merkle_tree *t = tree_of(self);
    return t ? PyLong_FromUnsignedLongLong(merkle_tree_leaf_count(t)) : NULL;
}

static PyObject *tree_root_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    PyObject *none[1];
    if (bind_args("Tree.root", NULL, 0, 0, args, nargs, kwnames, none) < 0) return NULL;
    merkle_tree *t = tree_of(self);
    if (!t) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN);
    if (!out) return NULL;
    return hash_result(merkle_tree_root((uint8_t *)PyBytes_AS_STRING(out), NULL, t), out);
}

static PyMethodDef tree_methods[] = {
    { "write", (PyCFunction)(void (*)(void))tree_write_m, METH_FASTCALL | METH_KEYWORDS,
      "write($self, /, data)\n--\n\nAppend bytes of the stream (any size; a leaf may span "
      "calls)." },
    { "leaf_count", (PyCFunction)(void (*)(void))tree_leaf_count_m, METH_FASTCALL | METH_KEYWORDS,
      "leaf_count($self, /)\n--\n\nLeaves so far, a started short leaf included." },
    { "root", (PyCFunction)(void (*)(void))tree_root_m, METH_FASTCALL | METH_KEYWORDS,
      "root($self, /)\n--\n\nFinish and return the 32-byte root (MerkleError "
      "MERKLE_ERR_STATE when called twice)." },
    { NULL, NULL, 0, NULL }
};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "merkle.Tree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_dealloc = tree_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Tree(leaf_size=None, profile='rfc6962', hash=None)\n--\n\n"
              "A streaming tree builder (merkle_tree) for data that arrives in pieces.\n\n"
              "    t = Tree(leaf_size=4096); t.write(b\"...\"); t.write(b\"...\"); r = t.root()\n\n"
              "Memory stays constant whatever the input size. After root() the builder is "
              "finished.",
    .tp_methods = tree_methods,
    .tp_init = tree_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------ TrieBase */

/* A key or value: bytes and bytearray as they are, other buffers by view, else bytes(x). */
int kv_arg(PyObject *o, const char *name, Py_buffer *view)
{
    if (PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes-like, not str", name);
        return -1;
    }
    if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) == 0) return 0;
    PyErr_Clear();
    PyObject *b = PyObject_CallFunctionObjArgs((PyObject *)&PyBytes_Type, o, NULL);
    if (!b) return -1;
    int r = PyObject_GetBuffer(b, view, PyBUF_SIMPLE);
    Py_DECREF(b);
    return r;
}

static PyMethodDef methods[] = {
    { "root", (PyCFunction)(void (*)(void))native_root, METH_FASTCALL | METH_KEYWORDS,
      "root($module, /, data, leaf_size=None, profile='rfc6962', hash=None, threads=None)\n--\n\n"
      "Merkle root (32 bytes) of a byte string cut into leaf_size-byte leaves (see "
      "docs/python.md)." },
    { "leaf_hash", (PyCFunction)(void (*)(void))native_leaf_hash, METH_FASTCALL | METH_KEYWORDS,
      "leaf_hash($module, /, data, hash='sha256')\n--\n\nLeaf hash H(0x00 || data)." },
    { "profile_id", (PyCFunction)(void (*)(void))native_profile_id, METH_FASTCALL | METH_KEYWORDS,
      "profile_id($module, /, profile)\n--\n\nThe merkle_profile value of a profile name." },
    { "hash_id", (PyCFunction)(void (*)(void))native_hash_id, METH_FASTCALL | METH_KEYWORDS,
      "hash_id($module, /, hash)\n--\n\nThe merkle_hash_alg value of a hash name." },
    { "hash_name", (PyCFunction)(void (*)(void))native_hash_name, METH_FASTCALL | METH_KEYWORDS,
      "hash_name($module, /, alg)\n--\n\nThe name of a merkle_hash_alg value (the library's "
      "own table)." },
    { "profile_defaults", (PyCFunction)(void (*)(void))native_profile_defaults,
      METH_FASTCALL | METH_KEYWORDS,
      "profile_defaults($module, /, profile='rfc6962')\n--\n\n(default hash name, default "
      "leaf size) of a profile: ('sha256', 4096) for rfc6962." },
    { "_resolve", (PyCFunction)(void (*)(void))native_resolve, METH_FASTCALL | METH_KEYWORDS,
      "_resolve($module, /, profile, hash, leaf_size)\n--\n\n(profile id, hash id, leaf "
      "size) with the profile's defaults filled in." },
    { "node_hash", (PyCFunction)(void (*)(void))native_node_hash, METH_FASTCALL | METH_KEYWORDS,
      "node_hash($module, /, left, right, hash='sha256')\n--\n\n"
      "Interior node hash H(0x01 || left || right) of two 32-byte child hashes." },
    { "digest", (PyCFunction)(void (*)(void))native_digest, METH_FASTCALL | METH_KEYWORDS,
      "digest($module, /, data, hash='sha256')\n--\n\n"
      "Plain digest (32 bytes) of data with a tree hash: sha256 or blake2b-256." },
    { "empty_root", (PyCFunction)(void (*)(void))native_empty_root, METH_FASTCALL | METH_KEYWORDS,
      "empty_root($module, /, profile='rfc6962', hash=None)\n--\n\n"
      "Root of the empty tree: H(\"\") for rfc6962, 32 zero bytes for sia." },
    { "root_leaves", (PyCFunction)(void (*)(void))native_root_leaves, METH_FASTCALL | METH_KEYWORDS,
      "root_leaves($module, /, leaves, profile='rfc6962', hash=None)\n--\n\n"
      "Merkle root of a list of leaves (each a bytes-like object; b\"\" is an empty leaf)." },
    { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT,
                                     "merkle._native",
                                     "The compiled binding of libmerkle (see _native.c).",
                                     -1,
                                     methods,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL };

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&TreeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&TreeType);
    if (PyModule_AddObject(m, "Tree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(&TreeType);
        Py_DECREF(m);
        return NULL;
    }
    /* The other parts of the binding, one file each (_native_<part>.c, see _native.h). */
    if (mpy_add_trie(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
