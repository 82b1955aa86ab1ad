# SPDX-License-Identifier: MIT OR Apache-2.0
# Type hints of merkle._lib (the implementation is _lib.py).
import ctypes
from typing import Any, Dict, Optional, Tuple

SONAME: str
OK: int
ERR_ARG: int
ERR_BUFFER: int
ERR_FORMAT: int
ERR_VERIFY: int
ERR_IO: int
ERR_NOMEM: int
ERR_RANGE: int
ERR_LIMIT: int
ERR_UNSUPPORTED: int
ERR_STATE: int
STATUS_NAMES: Dict[int, str]
HASH_LEN: int
lib: ctypes.CDLL

class Error(ctypes.Structure): ...

def has(symbol: str) -> bool: ...
def fn(name: str, restype: Any, *argtypes: Any) -> Any: ...
def strerror(status: int) -> str: ...

class Owner:
    def close(self) -> None: ...
    def __enter__(self: Any) -> Any: ...
    def __exit__(self, *exc: object) -> None: ...

class MerkleError(Exception):
    status: int
    name: str
    message: str
    detail: str
    line: int
    offset: int
    sys_errno: int
    def __init__(self, status: int, detail: str = ..., line: int = ..., offset: int = ...,
                 sys_errno: int = ..., what: Optional[str] = ...) -> None: ...

def check(status: int, err: Optional[Error] = ..., what: Optional[str] = ...) -> None: ...
def buffer(data: Any, name: str = ...) -> Tuple[Optional[ctypes.c_void_p], int, Any]: ...
def digest_arg(value: Any, name: str, length: int = ...) -> bytes: ...
def aligned(size: int, align: int = ...) -> Tuple[int, Any]: ...
