# SPDX-License-Identifier: MIT OR Apache-2.0
# Type hints of merkle.manifest (the implementation is manifest.py).
import os
from typing import BinaryIO, List, NamedTuple, Optional, Tuple, Union

from .tree import Buffer

MAX_DIGEST: int
ALGORITHMS: Tuple[str, ...]
CHECK_STATUS: Tuple[str, ...]
AVAILABLE: bool
ManifestSource = Union[str, bytes, "os.PathLike[str]", BinaryIO]

class Entry(NamedTuple):
    name: bytes
    algorithm: str
    digest: bytes
    line: int
    binary: bool
    bsd: bool

class CheckResult(NamedTuple):
    name: bytes
    status: str
    ok: bool
    digest: bytes
    size: int
    errno: int
    line: int

class Manifest(NamedTuple):
    entries: List[Entry]
    bad_lines: List[int]
    lines: int

def parse(text: Union[str, bytes], algorithm: Optional[str] = ...,
          digest_len: int = ...) -> Manifest: ...
def check_manifest(manifest: ManifestSource, base_dir: Union[str, "os.PathLike[str]"] = ...,
                   algorithm: Optional[str] = ...,
                   threads: int = ...) -> Tuple[List[CheckResult], List[int]]: ...
def digest(data: Buffer, algorithm: str = ..., length: Optional[int] = ...) -> bytes: ...
def file_digest(path: Union[str, bytes, "os.PathLike[str]"], algorithm: str = ...,
                length: Optional[int] = ...) -> bytes: ...
def format_line(algorithm: str, digest_bytes: Buffer, name: Union[str, bytes],
                tag: bool = ..., binary: bool = ..., zero: bool = ...) -> bytes: ...
def dirroot(manifest: Union[Manifest, ManifestSource], algorithm: Optional[str] = ...) -> bytes: ...
