# SPDX-License-Identifier: MIT OR Apache-2.0
"""`pip install ./python`: the merkle Python package with libmerkle inside, built from the
source tree this folder belongs to (python/merkle_build.py)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from merkle_build import main  # noqa: E402

main(source_dir=os.path.dirname(here), package_root=".")
