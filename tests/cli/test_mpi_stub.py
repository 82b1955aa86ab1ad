# SPDX-License-Identifier: MIT OR Apache-2.0
"""Without -DMERKLE_MPI=ON, `--mpi` is refused with a clear message and exit status 2 (the
MPI build itself is tested by tests/mpi under mpirun)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run  # noqa: E402


def built_with_mpi():
    cache = os.path.join(os.environ.get("MERKLE_BUILD_DIR", ""), "CMakeCache.txt")
    try:
        with open(cache) as f:
            return any(l.strip() in ("MERKLE_MPI:BOOL=ON", "MERKLE_MPI:BOOL=1") for l in f)
    except OSError:
        return False


@unittest.skipIf(built_with_mpi(), "this binary has MPI support")
class MpiStub(unittest.TestCase):
    def test_root_mpi_refused(self):
        rc, out, err = run(["root", "--mpi", "-"], b"abc")
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"built without MPI support", err)
        self.assertIn(b"-DMERKLE_MPI=ON", err)

    def test_check_mpi_refused(self):
        rc, out, err = run(["check", "--mpi", "-"], b"")
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"built without MPI support", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
