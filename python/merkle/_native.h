/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle._native: what the parts of the compiled binding share. _native.c holds the module
** (its init, the tree functions and these helpers); each other part of the library has its own
** _native_<part>.c with an mpy_add_<part>() that PyInit__native calls. The module is built with
** hidden visibility, so none of these names leaves it.
*/
#ifndef MERKLE_PY_NATIVE_H
#define MERKLE_PY_NATIVE_H

#include <Python.h>

#include <stddef.h>

#include <merkle/hash.h>
#include <merkle/tree.h>

/* Inputs at least this long are hashed with the GIL released. */
#define NATIVE_NOGIL_MIN 4096

/* Raise merkle._lib.MerkleError(status, detail, what=what); detail/what may be NULL. */
PyObject *raise_merkle(int status, const char *detail, PyObject *what);

/*
** Python-style argument binding for METH_FASTCALL | METH_KEYWORDS: out[i] gets the object for
** names[i] (NULL when not given). fn is "name" or "Class.name" (a method: counts include self).
*/
int bind_args(const char *fn, const char *const *names, int nnames, int nrequired,
              PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);

/* A str or bytes name as a C string (borrowed from name or *keep); TypeError otherwise. */
const char *name_arg(PyObject *value, const char *what, PyObject **keep);
/* A hash / profile name as the library's enum; MerkleError(MERKLE_ERR_ARG) when unknown. */
int hash_arg(PyObject *value, merkle_hash_alg *out);
int profile_arg(PyObject *value, merkle_profile *out);
/* A contiguous view of a bytes-like argument (str refused). Release with PyBuffer_Release. */
int data_arg(PyObject *o, const char *name, Py_buffer *view);
/* A leaf size (int > 0, bool refused). */
int leaf_size_arg(PyObject *o, size_t *ls);
/* A key or value: bytes and bytearray as they are, other buffers by view, else bytes(x). */
int kv_arg(PyObject *o, const char *name, Py_buffer *view);

/* The parts: each adds its functions and types to the module; -1 with an exception set. */
int mpy_add_trie(PyObject *m);

#endif
