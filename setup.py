# SPDX-License-Identifier: MIT OR Apache-2.0
"""`pip install .`: the merkle Python package with libmerkle inside (python/merkle_build.py)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "python"))
from merkle_build import main  # noqa: E402

main(source_dir=here, package_root="python")
