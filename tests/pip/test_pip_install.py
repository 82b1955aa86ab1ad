# SPDX-License-Identifier: MIT OR Apache-2.0
"""`pip install .` and `pip install ./python` in a fresh venv, offline: each builds libmerkle
with CMake, puts it inside the package, and `import merkle` then works with no
MERKLE_LIBRARY, no PYTHONPATH and no installed libmerkle1; the compiled binding
(merkle._native) is built and loaded; the Python tests, test_native.py's differential
checks among them, pass against the installed package.

The venv is `python3 -m venv --system-site-packages` of an interpreter whose site packages
hold the build backend (setuptools and wheel; on Debian python3-setuptools, python3-wheel),
and pip runs with --no-build-isolation --no-index: nothing is downloaded. The source is a
copy of the tracked and new files (no build outputs), so the worktree stays clean.
Env: MERKLE_SOURCE_DIR. Exit 77 (skip) when no interpreter has venv, pip, setuptools and
wheel."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ.get("MERKLE_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
PROBE = "import setuptools, wheel, venv, ensurepip, pip"  # setuptools first: pip imports distutils


def find_python():
    """The Debian interpreter first (its backend comes from Debian packages), then this one."""
    for cand in ("/usr/bin/python3", sys.executable, shutil.which("python3")):
        if cand and os.path.exists(cand) and subprocess.run(
                [cand, "-c", PROBE], capture_output=True).returncode == 0:
            return cand
    return None


PYTHON = find_python()
HAVE_HEADERS = PYTHON is not None and subprocess.run(
    [PYTHON, "-c", "import os, sysconfig, sys; "
     "sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"]
).returncode == 0


def copy_source(dest):
    """The files git tracks plus new untracked ones (like scripts/package-test.sh)."""
    try:
        files = subprocess.run(["git", "-C", SRC, "ls-files", "-co", "--exclude-standard", "-z"],
                               capture_output=True, check=True).stdout.split(b"\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("build", ".git", "*.egg-info"))
        return
    for f in filter(None, files):
        src = os.path.join(SRC.encode(), f)
        if not os.path.isfile(src):
            continue
        dst = os.path.join(dest.encode(), f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("MERKLE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "PYTHONHOME",
                        "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    return env


def sh(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(args), p.returncode,
                                                          p.stdout[-4000:], p.stderr[-4000:]))
    return p.stdout


def ref_root_abc():
    """RFC 6962 root of the leaves a, b, c (hashlib only)."""
    def h(b):
        return hashlib.sha256(b).digest()
    l = [h(b"\0" + c) for c in (b"a", b"b", b"c")]
    return h(b"\1" + h(b"\1" + l[0] + l[1]) + l[2]).hex()


@unittest.skipIf(PYTHON is None, "no python3 with venv, pip, setuptools and wheel (Debian: "
                 "python3-venv python3-pip python3-setuptools python3-wheel)")
class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.src = os.path.join(cls.tmp.name, "merkle")
        copy_source(cls.src)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def install_and_check(self, what):
        venv = os.path.join(self.tmp.name, "venv-" + what.replace("/", "_").strip("._") or "root")
        env = clean_env()
        sh([PYTHON, "-m", "venv", "--system-site-packages", venv], env=env)
        py = os.path.join(venv, "bin", "python")
        sh([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", what],
           cwd=self.src, env=env)
        # Outside the source tree, nothing on the path but the venv.
        out = sh([py, "-c", "import merkle, sys; print(merkle.__file__); "
                  "print(merkle.library_path()); print(merkle.root(b'abc', leaf_size=1).hex()); "
                  "print(merkle._native is not None)"],
                 cwd=self.tmp.name, env=env).split("\n")
        site = os.path.join(venv, "lib")
        self.assertTrue(out[0].startswith(site), out)
        self.assertTrue(out[1].startswith(site) and out[1].endswith("libmerkle.so.1"), out)
        self.assertEqual(out[2], ref_root_abc())
        # The compiled binding needs Python's headers (Debian: python3-dev); with them present
        # it must have been built and loaded.
        if HAVE_HEADERS:
            self.assertEqual(out[3], "True", "merkle._native was not built")
        pkg = os.path.dirname(out[0])
        self.assertTrue(os.path.exists(os.path.join(pkg, "py.typed")))
        # The module's own tests against the installed package (no MERKLE_BIN: the CLI
        # agreement checks need the merkle command, which a pip install does not build).
        tenv = dict(env, MERKLE_VECTOR_DIR=os.path.join(self.src, "tests", "vectors"),
                    PYTHONDONTWRITEBYTECODE="1")
        tests = os.path.join(self.tmp.name, "pytests-" + os.path.basename(venv))
        shutil.copytree(os.path.join(self.src, "python", "tests"), tests)
        sh([py, "-m", "unittest", "discover", "-s", tests, "-p", "test_*.py"],
           cwd=self.tmp.name, env=tenv)

    def test_pip_install_root(self):
        self.install_and_check(".")

    def test_pip_install_python_folder(self):
        self.install_and_check("./python")


if __name__ == "__main__":
    if PYTHON is None:
        print("SKIP: no python3 with venv, pip, setuptools and wheel")
        sys.exit(77)
    unittest.main(verbosity=2)
