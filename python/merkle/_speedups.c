/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle._speedups: the calls whose cost on small inputs is mostly call overhead, as a
** compiled module beside the ctypes one (built by pip install; the Debian package and a
** source tree run without it). It links the libmerkle.so.1 inside the package (rpath
** $ORIGIN), the same file the ctypes layer has already loaded.
**
** Each function handles the common, valid case itself and hands every other call (unusual
** argument types, bad names, errors) to the Python implementation it replaces, so results,
** exceptions and messages are those of the ctypes code, byte for byte.
**
**   root(data, leaf_size=None, profile="rfc6962", hash=None, threads=None) -> bytes
**   trie_put(trie, key, value)          (bound as merkle.Trie.put through instancemethod)
**   set_fallbacks(root, trie_put)       the Python implementations
**   instancemethod(f)                   a descriptor that binds f like a method
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include <merkle/tree.h>
#include <merkle/trie.h>

static PyObject *fallback_root;
static PyObject *fallback_trie_put;
static PyObject *str_t;      /* "_t": the c_void_p a Trie keeps its merkle_trie * in */
static PyObject *str_value;  /* "value" of that c_void_p */
static PyObject *kw_root[4]; /* leaf_size, profile, hash, threads */

/* Inputs at least this long are hashed with the GIL released (ctypes releases it always). */
#define SP_NOGIL_MIN 4096

static PyObject *call_fallback(PyObject *f, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    if (!f) {
        PyErr_SetString(PyExc_RuntimeError, "merkle._speedups: set_fallbacks() not called");
        return NULL;
    }
    return PyObject_Vectorcall(f, args, (size_t)nargs, kwnames);
}

/* 1 and *out set for a name this module decides alone, 0 to leave it to the fallback. */
static int profile_arg(PyObject *o, merkle_profile *out)
{
    if (!PyUnicode_CheckExact(o)) return 0;
    if (PyUnicode_CompareWithASCIIString(o, "rfc6962") == 0) {
        *out = MERKLE_PROFILE_RFC6962;
        return 1;
    }
    if (PyUnicode_CompareWithASCIIString(o, "sia") == 0) {
        *out = MERKLE_PROFILE_SIA;
        return 1;
    }
    return 0;
}

static int hash_arg(PyObject *o, merkle_hash_alg *out)
{
    if (!PyUnicode_CheckExact(o)) return 0;
    if (PyUnicode_CompareWithASCIIString(o, "sha256") == 0) {
        *out = MERKLE_HASH_SHA256;
        return 1;
    }
    if (PyUnicode_CompareWithASCIIString(o, "blake2b-256") == 0) {
        *out = MERKLE_HASH_BLAKE2B_256;
        return 1;
    }
    return 0;
}

static PyObject *sp_root(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    PyObject *opt[4] = { NULL, NULL, NULL, NULL }; /* leaf_size, profile, hash, threads */
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs < 1 || nargs > 5) goto slow;
    for (Py_ssize_t i = 1; i < nargs; i++) opt[i - 1] = args[i];
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int j = 0;
        while (j < 4 && name != kw_root[j] && PyUnicode_Compare(name, kw_root[j]) != 0) j++;
        if (j == 4 || opt[j]) goto slow; /* unknown or repeated: the fallback says so */
        opt[j] = args[nargs + k];
    }
    if (PyErr_Occurred()) return NULL;

    merkle_profile p = MERKLE_PROFILE_RFC6962;
    if (opt[1] && !profile_arg(opt[1], &p)) goto slow;
    merkle_hash_alg h;
    size_t ls;
    if (merkle_profile_defaults(&h, &ls, p) != MERKLE_OK) goto slow;
    if (opt[2] && opt[2] != Py_None && !hash_arg(opt[2], &h)) goto slow;
    if (opt[0] && opt[0] != Py_None) {
        if (!PyLong_CheckExact(opt[0])) goto slow;
        long v = PyLong_AsLong(opt[0]);
        if (v <= 0) {
            PyErr_Clear();
            goto slow;
        }
        ls = (size_t)v;
    }
    if (opt[3] && opt[3] != Py_None) {
        /* One thread only here; more threads are worth the Python path's few microseconds. */
        if (!PyLong_CheckExact(opt[3]) || PyLong_AsLong(opt[3]) != 1) {
            PyErr_Clear();
            goto slow;
        }
    }
    PyObject *data = args[0];
    if (PyUnicode_Check(data) || !PyObject_CheckBuffer(data)) goto slow;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear(); /* e.g. a non-contiguous view: the fallback copies it */
        goto slow;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, MERKLE_HASH_LEN);
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    merkle_status s;
    if (view.len >= SP_NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS s = merkle_tree_root_bytes(o, p, h, ls, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else {
        s = merkle_tree_root_bytes(o, p, h, ls, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    if (s == MERKLE_OK) return out;
    Py_DECREF(out);
slow:
    return call_fallback(fallback_root, args, nargs, kwnames);
}

/* The merkle_trie * of a merkle.Trie, or NULL (closed, or not what we expect). */
static merkle_trie *trie_of(PyObject *obj)
{
    PyObject *t = PyObject_GetAttr(obj, str_t);
    if (!t) {
        PyErr_Clear();
        return NULL;
    }
    void *ptr = NULL;
    if (t != Py_None) {
        PyObject *v = PyObject_GetAttr(t, str_value);
        if (v && PyLong_Check(v)) ptr = PyLong_AsVoidPtr(v);
        Py_XDECREF(v);
        PyErr_Clear();
    }
    Py_DECREF(t);
    return (merkle_trie *)ptr;
}

/* A bytes or bytearray argument (what the Python code passes without a copy). */
static int small_bytes(PyObject *o, const uint8_t **p, size_t *n)
{
    if (PyBytes_CheckExact(o)) {
        *p = (const uint8_t *)PyBytes_AS_STRING(o);
        *n = (size_t)PyBytes_GET_SIZE(o);
        return 1;
    }
    if (PyByteArray_CheckExact(o)) {
        *p = (const uint8_t *)PyByteArray_AS_STRING(o);
        *n = (size_t)PyByteArray_GET_SIZE(o);
        return 1;
    }
    return 0;
}

static PyObject *sp_trie_put(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    (void)self;
    if (nargs != 3 || kwnames) goto slow;
    merkle_trie *t = trie_of(args[0]);
    const uint8_t *k, *v;
    size_t kn, vn;
    if (!t || !small_bytes(args[1], &k, &kn) || !small_bytes(args[2], &v, &vn)) goto slow;
    if (merkle_trie_put(t, k, kn, v, vn) == MERKLE_OK) Py_RETURN_NONE;
slow: /* errors, other buffer types, a closed trie: the Python method decides and raises */
    return call_fallback(fallback_trie_put, args, nargs, kwnames);
}

static PyObject *sp_set_fallbacks(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *r, *p;
    if (!PyArg_ParseTuple(args, "OO", &r, &p)) return NULL;
    Py_INCREF(r);
    Py_INCREF(p);
    Py_XSETREF(fallback_root, r);
    Py_XSETREF(fallback_trie_put, p);
    Py_RETURN_NONE;
}

static PyObject *sp_instancemethod(PyObject *self, PyObject *f)
{
    (void)self;
    return PyInstanceMethod_New(f);
}

static PyMethodDef methods[] = {
    { "root", (PyCFunction)(void (*)(void))sp_root, METH_FASTCALL | METH_KEYWORDS,
      "root(data, leaf_size=None, profile='rfc6962', hash=None, threads=None) -> bytes" },
    { "trie_put", (PyCFunction)(void (*)(void))sp_trie_put, METH_FASTCALL | METH_KEYWORDS,
      "trie_put(trie, key, value): merkle.Trie.put" },
    { "set_fallbacks", sp_set_fallbacks, METH_VARARGS,
      "set_fallbacks(root, trie_put): the Python implementations for every other case" },
    { "instancemethod", sp_instancemethod, METH_O, "bind a builtin function like a method" },
    { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT,
                                     "merkle._speedups",
                                     "Compiled fast paths of merkle (see _speedups.c).",
                                     -1,
                                     methods,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL };

PyMODINIT_FUNC PyInit__speedups(void)
{
    static const char *const names[4] = { "leaf_size", "profile", "hash", "threads" };
    for (int i = 0; i < 4; i++)
        if (!(kw_root[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    if (!(str_t = PyUnicode_InternFromString("_t"))) return NULL;
    if (!(str_value = PyUnicode_InternFromString("value"))) return NULL;
    return PyModule_Create(&module);
}
