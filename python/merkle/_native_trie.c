/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle._native, the trie part (include/merkle/trie.h): the base class of merkle.Trie.
**
**   TrieBase: _alloc(branch_factor) -> status, _free(), _addr (int, 0 when closed),
**             put(key, value)
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <merkle/trie.h>

#include "_native.h"

typedef struct {
    PyObject_HEAD merkle_trie *t;
} TrieBase;

static void trie_dealloc(PyObject *self)
{
    TrieBase *tb = (TrieBase *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (tb->t) {
        merkle_trie_free(tb->t);
        tb->t = NULL;
    }
    tp->tp_free(self);
}

static PyObject *trie_alloc_m(PyObject *self, PyObject *arg)
{
    TrieBase *tb = (TrieBase *)self;
    unsigned long bf = PyLong_AsUnsignedLong(arg);
    if (bf == (unsigned long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear();
        return PyLong_FromLong(MERKLE_ERR_ARG);
    }
    if (bf > 0xffffffffUL) return PyLong_FromLong(MERKLE_ERR_ARG);
    merkle_trie *t = NULL;
    merkle_status st = merkle_trie_alloc(&t, (unsigned)bf);
    if (st == MERKLE_OK) {
        if (tb->t) merkle_trie_free(tb->t);
        tb->t = t;
    }
    return PyLong_FromLong(st);
}

static PyObject *trie_free_m(PyObject *self, PyObject *unused)
{
    (void)unused;
    TrieBase *tb = (TrieBase *)self;
    if (tb->t) {
        merkle_trie_free(tb->t);
        tb->t = NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *trie_addr(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((TrieBase *)self)->t);
}

static PyObject *trie_put_m(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    static const char *const names[] = { "key", "value" };
    PyObject *a[2];
    if (bind_args("Trie.put", names, 2, 2, args, nargs, kwnames, a) < 0) return NULL;
    const uint8_t *k, *v;
    size_t kn, vn;
    Py_buffer kb = { 0 }, vb = { 0 };
    int kview = 0, vview = 0;
    if (PyBytes_CheckExact(a[0])) {
        k = (const uint8_t *)PyBytes_AS_STRING(a[0]);
        kn = (size_t)PyBytes_GET_SIZE(a[0]);
    } else {
        if (kv_arg(a[0], "key", &kb) < 0) return NULL;
        kview = 1;
        k = kb.buf;
        kn = (size_t)kb.len;
    }
    if (PyBytes_CheckExact(a[1])) {
        v = (const uint8_t *)PyBytes_AS_STRING(a[1]);
        vn = (size_t)PyBytes_GET_SIZE(a[1]);
    } else {
        if (kv_arg(a[1], "value", &vb) < 0) {
            if (kview) PyBuffer_Release(&kb);
            return NULL;
        }
        vview = 1;
        v = vb.buf;
        vn = (size_t)vb.len;
    }
    merkle_trie *t = ((TrieBase *)self)->t;
    merkle_status st = t ? merkle_trie_put(t, k, kn, v, vn) : MERKLE_ERR_STATE;
    if (kview) PyBuffer_Release(&kb);
    if (vview) PyBuffer_Release(&vb);
    if (st == MERKLE_OK) Py_RETURN_NONE;
    return raise_merkle(st, t ? NULL : "the trie was closed", NULL);
}

static PyMethodDef trie_methods[] = {
    { "_alloc", trie_alloc_m, METH_O,
      "_alloc(branch_factor) -> merkle_status: a new, empty merkle_trie (frees the old one)" },
    { "_free", trie_free_m, METH_NOARGS, "_free(): free the merkle_trie now (idempotent)" },
    { "put", (PyCFunction)(void (*)(void))trie_put_m, METH_FASTCALL | METH_KEYWORDS,
      "put($self, /, key, value)\n--\n\n"
      "Insert or replace key -> value (both bytes-like; b\"\" is a present, empty value)." },
    { NULL, NULL, 0, NULL }
};

static PyGetSetDef trie_getset[] = { { "_addr", trie_addr, NULL,
                                       "address of the merkle_trie (0 when closed)", NULL },
                                     { NULL, NULL, NULL, NULL, NULL } };

static PyTypeObject TrieBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "merkle._native.TrieBase",
    .tp_basicsize = sizeof(TrieBase),
    .tp_dealloc = trie_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The merkle_trie a merkle.Trie owns (see merkle/trie.py).",
    .tp_methods = trie_methods,
    .tp_getset = trie_getset,
    .tp_new = PyType_GenericNew,
};

int mpy_add_trie(PyObject *m)
{
    if (PyType_Ready(&TrieBaseType) < 0) return -1;
    Py_INCREF(&TrieBaseType);
    if (PyModule_AddObject(m, "TrieBase", (PyObject *)&TrieBaseType) < 0) {
        Py_DECREF(&TrieBaseType);
        return -1;
    }
    return 0;
}
