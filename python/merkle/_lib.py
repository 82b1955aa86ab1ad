# SPDX-License-Identifier: MIT OR Apache-2.0
"""Loading libmerkle and turning its status codes into Python exceptions.

The shared library is found, in this order, at the path in the MERKLE_LIBRARY environment
variable, next to this file (the copy a pip install puts inside the package), by
ctypes.util.find_library("merkle"), and by its soname libmerkle.so.1.
Nothing here needs a compiler: every call goes through ctypes.
"""
import ctypes
import ctypes.util
import os

SONAME = "libmerkle.so.1"

# merkle_status values (include/merkle/common.h).
OK = 0
ERR_ARG = -1
ERR_BUFFER = -2
ERR_FORMAT = -3
ERR_VERIFY = -4
ERR_IO = -5
ERR_NOMEM = -6
ERR_RANGE = -7
ERR_LIMIT = -8
ERR_UNSUPPORTED = -9
ERR_STATE = -10
ERR_UNSAFE = -11

STATUS_NAMES = {
    OK: "MERKLE_OK", ERR_ARG: "MERKLE_ERR_ARG", ERR_BUFFER: "MERKLE_ERR_BUFFER",
    ERR_FORMAT: "MERKLE_ERR_FORMAT", ERR_VERIFY: "MERKLE_ERR_VERIFY", ERR_IO: "MERKLE_ERR_IO",
    ERR_NOMEM: "MERKLE_ERR_NOMEM", ERR_RANGE: "MERKLE_ERR_RANGE", ERR_LIMIT: "MERKLE_ERR_LIMIT",
    ERR_UNSUPPORTED: "MERKLE_ERR_UNSUPPORTED", ERR_STATE: "MERKLE_ERR_STATE",
    ERR_UNSAFE: "MERKLE_ERR_UNSAFE",
}

HASH_LEN = 32


def _load():
    tried = []
    path = os.environ.get("MERKLE_LIBRARY")
    if path:
        # An explicit choice is final: a wrong path is an error, not a silent fallback.
        return ctypes.CDLL(path)
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)
    if os.path.exists(bundled):
        return ctypes.CDLL(bundled)
    name = ctypes.util.find_library("merkle")
    for candidate in ([name] if name else []) + [SONAME]:
        try:
            return ctypes.CDLL(candidate)
        except OSError as e:
            tried.append("%s (%s)" % (candidate, e))
    raise OSError("merkle: cannot load libmerkle; tried %s. Install libmerkle1 or set "
                  "MERKLE_LIBRARY=/path/to/libmerkle.so.1" % "; ".join(tried))


lib = _load()


class Error(ctypes.Structure):
    """struct merkle_error."""
    _fields_ = [("status", ctypes.c_int), ("line", ctypes.c_uint64),
                ("offset", ctypes.c_uint64), ("sys_errno", ctypes.c_int),
                ("message", ctypes.c_char * 200)]


def has(symbol):
    """True when the loaded library exports symbol (features that landed in this build)."""
    return hasattr(lib, symbol)


def fn(name, restype, *argtypes):
    """Declare and return the C function name (None when this library lacks it)."""
    if not has(name):
        return None
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_strerror = fn("merkle_strerror", ctypes.c_char_p, ctypes.c_int)


def strerror(status):
    """The library's message for a status code (merkle_strerror)."""
    return _strerror(status).decode("utf-8", "replace")


class Owner:
    """Base of the wrappers that own C memory: close() frees it (idempotent); it is also
    called at the end of a with block and when the object is garbage collected."""

    def close(self):
        raise NotImplementedError

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class MerkleError(Exception):
    """A libmerkle call returned a status other than MERKLE_OK.

    Attributes: status (the negative merkle_status code), name ("MERKLE_ERR_..."),
    message (merkle_strerror(status)), detail (the merkle_error message when the function
    reports one, else ""), line and offset (from merkle_error, 0 when not applicable),
    sys_errno (errno of a failed system call, else 0).
    """

    def __init__(self, status, detail="", line=0, offset=0, sys_errno=0, what=None):
        self.status = status
        self.name = STATUS_NAMES.get(status, "MERKLE_ERR_%d" % status)
        self.message = strerror(status)
        self.detail = detail
        self.line = line
        self.offset = offset
        self.sys_errno = sys_errno
        text = self.message
        if detail and detail != self.message:
            text += ": " + detail
        if what:
            text = "%s: %s" % (what, text)
        super().__init__(text)


def check(status, err=None, what=None):
    """Raise MerkleError for a non-OK status; err is an optional Error filled by the call."""
    if status == OK:
        return
    if err is not None and err.status == status:
        raise MerkleError(status, err.message.decode("utf-8", "replace"), err.line, err.offset,
                          err.sys_errno, what)
    raise MerkleError(status, what=what)


def buffer(data, name="data"):
    """A (pointer, length, keepalive) triple for a bytes-like object, without copying bytes.

    bytes are passed as they are; writable buffers (bytearray, writable memoryview) by
    address; anything else bytes-like is copied once. str is refused: bytes in, bytes out.
    """
    if isinstance(data, bytes):
        return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), data
    if isinstance(data, str):
        raise TypeError("%s must be bytes-like, not str (encode it first)" % name)
    mv = memoryview(data).cast("B")
    n = mv.nbytes
    if n == 0:
        return None, 0, mv
    if not mv.readonly and mv.contiguous:
        arr = (ctypes.c_char * n).from_buffer(mv)
        return ctypes.cast(arr, ctypes.c_void_p), n, (arr, mv)
    b = mv.tobytes()
    return ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p), n, b


def digest_arg(value, name, length=HASH_LEN):
    """Check that value is a bytes-like digest of length bytes; return it as bytes."""
    if isinstance(value, str):
        raise TypeError("%s must be bytes, not str (use bytes.fromhex)" % name)
    b = bytes(value)
    if len(b) != length:
        raise MerkleError(ERR_ARG, "%s must be %d bytes, got %d" % (name, length, len(b)))
    return b


def aligned(size, align=64):
    """A zeroed ctypes buffer of size bytes whose address is a multiple of align.

    Returns (address, keepalive). Structures that embed hash states are 64-byte aligned.
    """
    raw = ctypes.create_string_buffer(size + align)
    addr = ctypes.addressof(raw)
    pad = (-addr) % align
    return addr + pad, raw
