#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes tests/vectors/bittorrent-v2.json: BEP 52 pieces roots and piece layers made by
libtorrent (Debian python3-libtorrent 2.0.8: apt-get install python3-libtorrent; run with
the system /usr/bin/python3).

    /usr/bin/python3 tests/vectors/gen_bittorrent_v2.py > tests/vectors/bittorrent-v2.json

For each size, a file whose byte k is (k * 31 + size) mod 251 is written to a temporary
directory, a v2-only torrent is created with create_torrent(..., v2_only) and
set_piece_hashes, and the file's "pieces root" and the torrent's "piece layers" entry for
it (at each piece size) are recorded in hex.
"""
import json
import os
import sys
import tempfile

import libtorrent as lt


def content(size):
    return bytes((k * 31 + size) % 251 for k in range(size))


def torrent(path, piece_size):
    fs = lt.file_storage()
    lt.add_files(fs, path)
    ct = lt.create_torrent(fs, piece_size, flags=lt.create_torrent.v2_only)
    lt.set_piece_hashes(ct, os.path.dirname(path))
    return lt.bdecode(lt.bencode(ct.generate()))


def main():
    out = {"source": "libtorrent " + lt.__version__ + " (python3-libtorrent)", "files": []}
    sizes = [1, 100, 16383, 16384, 16385, 32768, 32769, 49159, 65536, 100000, 262144 + 3,
             1048576, 1048576 + 16384 * 5 + 1]
    with tempfile.TemporaryDirectory() as d:
        for size in sizes:
            p = os.path.join(d, "f%d" % size)
            with open(p, "wb") as f:
                f.write(content(size))
            entry = {"size": size, "piece_layers": {}}
            for ps in (16384, 32768, 65536, 262144):
                t = torrent(p, ps)
                info = t[b"info"]
                leaf = info[b"file tree"][os.path.basename(p).encode()][b""]
                root = leaf[b"pieces root"]
                if "pieces_root" in entry:
                    assert entry["pieces_root"] == root.hex()
                entry["pieces_root"] = root.hex()
                layers = t.get(b"piece layers", {})
                if root in layers:
                    h = layers[root]
                    entry["piece_layers"][str(ps)] = [h[i:i + 32].hex() for i in range(0, len(h), 32)]
            out["files"].append(entry)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
