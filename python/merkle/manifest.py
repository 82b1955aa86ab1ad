# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checksum manifests (md5sum/sha*sum/b2sum lists) and directory checks (merkle/manifest.h)."""
import collections
import ctypes
import os

from . import _lib
from ._lib import MerkleError, check, fn

c_int, c_uint, c_size_t, c_void_p, c_char_p, c_u8, c_u32, c_u64 = (
    ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p,
    ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint64)
MAX_DIGEST = 64

ALGORITHMS = ("md5", "sha1", "sha256", "sha512", "blake2b")
CHECK_STATUS = ("OK", "FAILED", "MISSING", "ERROR")  # merkle_check_status 0..3


class _Entry(ctypes.Structure):
    _fields_ = [("name", c_void_p), ("name_len", c_size_t), ("line", c_u64), ("alg", c_int),
                ("digest_len", c_u32), ("digest", c_u8 * MAX_DIGEST), ("binary", c_u8),
                ("bsd", c_u8)]


class _Parser(ctypes.Structure):
    _fields_ = [("alg", c_int), ("digest_len", c_u32), ("bsd_reversed", c_int),
                ("reject_dash", c_int)]


class _CheckResult(ctypes.Structure):
    _fields_ = [("status", c_int), ("sys_errno", c_int), ("from_cache", c_u8), ("size", c_u64),
                ("digest", c_u8 * MAX_DIGEST)]


_PROGRESS = ctypes.CFUNCTYPE(None, c_void_p, c_u64, c_u64)


CHECK_OPTS_VERSION = 1  # MERKLE_CHECK_OPTS_VERSION of the layout below


class _CheckOpts(ctypes.Structure):
    _fields_ = [("version", c_u32), ("dir", c_char_p), ("threads", c_uint), ("cache", c_void_p),
                ("dash_is_stdin", c_int), ("progress", c_void_p), ("progress_ctx", c_void_p),
                ("on_result", c_void_p), ("result_ctx", c_void_p)]


_E = ctypes.POINTER(_lib.Error)
_alg_from_name = fn("merkle_manifest_alg_from_name", c_int, ctypes.POINTER(c_int), c_char_p)
_alg_len = fn("merkle_hash_alg_len", c_size_t, c_int)
_parser_init = fn("merkle_manifest_parser_init", None, ctypes.POINTER(_Parser), c_int, c_u32)
_parse_alloc = fn("merkle_manifest_parse_alloc", c_int, ctypes.POINTER(c_void_p),
                  ctypes.POINTER(_Parser), c_char_p, c_size_t, c_u64, _E)
_free = fn("merkle_manifest_free", None, c_void_p)
_m_count = fn("merkle_manifest_count", c_size_t, c_void_p)
_m_entries = fn("merkle_manifest_entries", ctypes.POINTER(_Entry), c_void_p)
_m_bad = fn("merkle_manifest_bad_lines", ctypes.POINTER(c_u64), c_void_p,
            ctypes.POINTER(c_size_t))
_m_lines = fn("merkle_manifest_lines", c_u64, c_void_p)
_format_line = fn("merkle_manifest_format_line", c_int, c_void_p, c_size_t,
                  ctypes.POINTER(c_size_t), c_int, c_char_p, c_size_t, c_char_p, c_uint)
_digest = fn("merkle_manifest_digest", c_int, c_void_p, c_int, c_size_t, c_void_p, c_size_t)
_digest_file = fn("merkle_manifest_digest_file", c_int, c_void_p, c_int, c_size_t, c_char_p,
                  ctypes.POINTER(c_u64), _E)
_opts_init = fn("merkle_check_opts_init", c_int, ctypes.POINTER(_CheckOpts), c_u32)
_check = fn("merkle_manifest_check", c_int, ctypes.POINTER(_CheckResult),
            ctypes.POINTER(_Entry), c_size_t, ctypes.POINTER(_CheckOpts), _E)
_dirroot = fn("merkle_manifest_dirroot", c_int, c_void_p, c_void_p, _E)

AVAILABLE = _parse_alloc is not None

Entry = collections.namedtuple("Entry", "name algorithm digest line binary bsd")
Entry.__doc__ = """One manifest line: name (bytes, unescaped), algorithm ("md5", ...),
digest (bytes), line (1-based), binary ('*' before the name), bsd (BSD tag line)."""

CheckResult = collections.namedtuple("CheckResult", "name status ok digest size errno line")
CheckResult.__doc__ = """Per-file result of check(): name (bytes), status ("OK", "FAILED",
"MISSING" or "ERROR"), ok (bool), digest (bytes computed; b"" when not read, e.g. served
from the cache or on error), size (bytes hashed), errno (for MISSING/ERROR), line."""


class Manifest(collections.namedtuple("Manifest", "entries bad_lines lines")):
    """A parsed manifest: entries (list of Entry), bad_lines (1-based numbers of lines that
    did not parse, skipped as md5sum -c does) and lines (lines read)."""


def _alg_id(name):
    if name is None:
        return 0
    out = c_int()
    check(_alg_from_name(ctypes.byref(out), name.encode() if isinstance(name, str) else name),
          what="algorithm %r (md5, sha1, sha256, sha512, blake2b)" % (name,))
    return out.value


def _alg_name(value):
    return ALGORITHMS[value - 1] if 1 <= value <= len(ALGORITHMS) else str(value)


def _text(data):
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    return bytes(data)


def _fsname(name):
    return name if isinstance(name, bytes) else os.fsencode(name)


class _Parsed(_lib.Owner):
    """A C merkle_manifest, freed on close (context manager)."""

    def __init__(self, text, algorithm=None, digest_len=0):
        self.m = None
        p = _Parser()
        _parser_init(ctypes.byref(p), _alg_id(algorithm), digest_len)
        data = _text(text)
        err = _lib.Error()
        h = c_void_p()
        check(_parse_alloc(ctypes.byref(h), ctypes.byref(p), data, len(data), 1,
                           ctypes.byref(err)), err)
        self.m = h

    def close(self):
        if getattr(self, "m", None) is not None:
            _free(self.m)
            self.m = None

    def count(self):
        return int(_m_count(self.m))

    def lines(self):
        return int(_m_lines(self.m))

    def raw_entries(self):
        return _m_entries(self.m)

    def entries(self):
        out = []
        ents = _m_entries(self.m)
        for i in range(self.count()):
            e = ents[i]
            out.append(Entry(ctypes.string_at(e.name, e.name_len), _alg_name(e.alg),
                             bytes(e.digest[:e.digest_len]), int(e.line), bool(e.binary),
                             bool(e.bsd)))
        return out

    def bad_lines(self):
        n = c_size_t()
        b = _m_bad(self.m, ctypes.byref(n))
        return [int(b[i]) for i in range(n.value)]


def parse(text, algorithm=None, digest_len=0):
    """Parse a checksum list (str or bytes; GNU "HEX  NAME" / "HEX *NAME" lines and BSD
    "ALGO (NAME) = HEX" tags, coreutils rules). algorithm None detects it per line (BSD tag,
    or hex length 32/40/64/128); digest_len restricts blake2b lines to that many bytes.
    Returns a Manifest; malformed lines are listed in .bad_lines, not raised."""
    with _Parsed(text, algorithm, digest_len) as p:
        return Manifest(p.entries(), p.bad_lines(), p.lines())


def _read(manifest):
    if isinstance(manifest, (bytes, bytearray, memoryview)):
        return bytes(manifest)
    if hasattr(manifest, "read"):
        return _text(manifest.read())
    with open(manifest, "rb") as f:
        return f.read()


def check_manifest(manifest, base_dir=".", algorithm=None, threads=0):
    """Check the files a checksum list names, as `md5sum -c` / `merkle check` do.

    manifest: a path (str or os.PathLike), bytes holding the list's text, or a file object.
    Names are relative to base_dir. threads: 0 = all cores. Returns (results, bad_lines):
    one CheckResult per entry, in manifest order, and the 1-based numbers of malformed lines.
    Every file verified when all(r.ok for r in results) and results is not empty.
    Per-file failures are results, not exceptions; MerkleError for bad arguments."""
    text = _read(manifest)
    # the errors of opening it (FileNotFoundError, NotADirectoryError) before any work
    os.close(os.open(base_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)))
    with _Parsed(text, algorithm) as p:
        n = p.count()
        entries = p.entries()
        res = (_CheckResult * max(n, 1))()
        opts = _CheckOpts()
        _opts_init(ctypes.byref(opts), CHECK_OPTS_VERSION)
        opts.dir = _fsname(os.fspath(base_dir))
        opts.threads = threads
        err = _lib.Error()
        check(_check(res, p.raw_entries(), n, ctypes.byref(opts), ctypes.byref(err)), err)
        out = []
        for i, e in enumerate(entries):
            r = res[i]
            st = CHECK_STATUS[r.status] if 0 <= r.status < 4 else str(r.status)
            dig = b"" if (r.from_cache or r.status >= 2) else bytes(
                r.digest[:len(e.digest)])
            out.append(CheckResult(e.name, st, r.status == 0, dig, int(r.size),
                                   int(r.sys_errno), e.line))
        return out, p.bad_lines()


def digest(data, algorithm="sha256", length=None):
    """Digest of bytes with a manifest algorithm (md5, sha1, sha256, sha512, blake2b);
    length in bytes for blake2b (default 64, as b2sum)."""
    a = _alg_id(algorithm)
    n = _alg_len(a) if length is None else length
    ptr, size, keep = _lib.buffer(data)
    out = ctypes.create_string_buffer(MAX_DIGEST)
    check(_digest(out, a, n, ptr, size))
    del keep
    return out.raw[:n]


def file_digest(path, algorithm="sha256", length=None):
    """Digest of a file's contents (as `merkle sum -a ALGO FILE`)."""
    a = _alg_id(algorithm)
    n = _alg_len(a) if length is None else length
    out = ctypes.create_string_buffer(MAX_DIGEST)
    err = _lib.Error()
    os.close(os.open(path, os.O_RDONLY))  # FileNotFoundError, PermissionError as before
    check(_digest_file(out, a, n, _fsname(os.fspath(path)), None, ctypes.byref(err)), err,
          what=os.fsdecode(path))
    return out.raw[:n]


def format_line(algorithm, digest_bytes, name, tag=False, binary=False, zero=False):
    """One checksum line (bytes, terminator included) exactly as md5sum/sha256sum/b2sum
    print it: GNU "HEX  NAME\\n" (escaped names start with a backslash), or with tag=True the
    BSD form "ALGO (NAME) = HEX\\n"; binary=True marks '*'; zero=True ends with NUL and
    does not escape."""
    a = _alg_id(algorithm)
    d = bytes(digest_bytes)
    nm = _fsname(name)
    flags = (1 if tag else 0) | (2 if binary else 0) | (4 if zero else 0)
    n = c_size_t()
    s = _format_line(None, 0, ctypes.byref(n), a, d, len(d), nm, flags)
    if s != _lib.ERR_BUFFER:
        check(s)
    buf = ctypes.create_string_buffer(n.value + 1)
    check(_format_line(buf, len(buf), ctypes.byref(n), a, d, len(d), nm, flags))
    return buf.raw[:n.value]


def dirroot(manifest, algorithm=None):
    """One RFC 6962 SHA-256 root over a manifest's entries sorted by name (`merkle
    dirroot`). manifest as for check_manifest. MerkleError MERKLE_ERR_FORMAT for a malformed
    line or a duplicate name (.line says which)."""
    text = _read(manifest)
    with _Parsed(text, algorithm) as p:
        bad = p.bad_lines()
        if bad:
            raise MerkleError(_lib.ERR_FORMAT, "malformed manifest line", line=bad[0])
        out = ctypes.create_string_buffer(_lib.HASH_LEN)
        err = _lib.Error()
        check(_dirroot(out, p.m, ctypes.byref(err)), err)
        return out.raw
