# SPDX-License-Identifier: MIT OR Apache-2.0
"""Install the library into a temporary prefix and build docs/example.c (C) and
tests/install/consumer.cpp (C++17) against it, with pkg-config and with CMake's
find_package(merkle); run them and check their output. Without a C++ compiler the C++
consumer is skipped with a message. The build tree's own merkleConfig.cmake and merkle.pc
are used the same way, without installing."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import SRC, run  # noqa: E402

BUILD = os.environ.get("MERKLE_BUILD_DIR")
EXAMPLE = os.path.join(SRC, "docs", "example.c")
CONSUMER_CPP = os.path.join(SRC, "tests", "install", "consumer.cpp")
CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++") or shutil.which("clang++")
# MTH of ["0","1","2"] from the public vectors (rfc6962-root-n3)
ROOT3 = "725d5230db68f557470dc35f1d8865813acd7ebb07ad152774141decbae71327"


def sh(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise AssertionError("%s failed:\n%s\n%s" % (" ".join(args), p.stdout, p.stderr))
    return p.stdout


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prefix = os.path.join(cls.tmp.name, "prefix")
        sh(["cmake", "--install", BUILD, "--prefix", cls.prefix])
        cls.sample = os.path.join(SRC, "samples", "sample.bin")
        rc, out, err = run(["root", "-j", "1", cls.sample])
        assert rc == 0, err
        cls.want_file = out.decode()
        rc, out, err = run(["root", "--leaf-size", "1"], b"abc")
        assert rc == 0, err
        # merkle root's line, and BLAKE2b-256("abc") as Python's hashlib computes it
        cls.want_cpp = out.decode() + "blake2b-256 %s\n" % hashlib.blake2b(
            b"abc", digest_size=32).hexdigest()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def lib_env(self):
        env = dict(os.environ)
        libdir = os.path.dirname(self.pc_path)
        env["LD_LIBRARY_PATH"] = os.path.dirname(libdir)
        return env

    def check_output(self, exe, shared):
        env = self.lib_env() if shared else dict(os.environ)
        out = sh([exe, self.sample], env=env)
        lines = out.splitlines()
        self.assertEqual(lines[0] + "\n", self.want_file)
        self.assertEqual(lines[1], ROOT3 + '  ["0","1","2"]')
        self.assertEqual(lines[2], "leaf size 0: invalid argument")

    def test_headers_and_files_installed(self):
        inc = os.path.join(self.prefix, "include", "merkle")
        for h in ("merkle.h", "common.h", "hash.h", "tree.h", "export.h", "version.h"):
            self.assertTrue(os.path.exists(os.path.join(inc, h)), h)
        self.assertTrue(os.path.exists(os.path.join(self.prefix, "bin", "merkle")))

    def test_pkg_config(self):
        pcs = []
        for root, _, files in os.walk(self.prefix):
            pcs += [os.path.join(root, f) for f in files if f == "merkle.pc"]
        self.assertEqual(len(pcs), 1)
        Install.pc_path = pcs[0]
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
        flags = sh(["pkg-config", "--cflags", "--libs", "merkle"], env=env).split()
        exe = os.path.join(self.tmp.name, "example_pc")
        sh(["cc", "-std=c11", "-Wall", "-Werror", EXAMPLE, "-o", exe] + flags, env=env)
        self.check_output(exe, shared=True)
        # static linking through pkg-config --static pulls libsodium and pthreads (no libcrypto)
        sflags = sh(["pkg-config", "--static", "--cflags", "--libs", "merkle"], env=env).split()
        exe_s = os.path.join(self.tmp.name, "example_static")
        libdir = os.path.dirname(os.path.dirname(pcs[0]))
        sh(["cc", "-std=c11", "-DMERKLE_STATIC_DEFINE", EXAMPLE, "-o", exe_s,
            "-I" + os.path.join(self.prefix, "include"), os.path.join(libdir, "libmerkle.a")] +
           [f for f in sflags if f not in ("-lmerkle",) and not f.startswith("-I")], env=env)
        self.check_output(exe_s, shared=False)

    def test_pkg_config_cpp(self):
        if CXX is None:
            self.skipTest("no C++ compiler (c++, g++, clang++): C++ consumer not built")
        if not hasattr(Install, "pc_path"):
            self.test_pkg_config()
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(self.pc_path))
        flags = sh(["pkg-config", "--cflags", "--libs", "merkle"], env=env).split()
        exe = os.path.join(self.tmp.name, "consumer_pc_cpp")
        sh([CXX, "-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", CONSUMER_CPP,
            "-o", exe] + flags, env=env)
        self.assertEqual(sh([exe], env=self.lib_env()), self.want_cpp)

    def test_find_package(self):
        bdir = os.path.join(self.tmp.name, "consumer")
        sh(["cmake", "-S", os.path.join(SRC, "tests", "install"), "-B", bdir,
            "-DCMAKE_PREFIX_PATH=" + self.prefix, "-DEXAMPLE_SOURCE=" + EXAMPLE])
        sh(["cmake", "--build", bdir])
        if not hasattr(Install, "pc_path"):
            self.test_pkg_config()
        self.check_output(os.path.join(bdir, "example_cmake"), shared=True)
        cpp = os.path.join(bdir, "consumer_cpp")
        if CXX is None:
            self.skipTest("no C++ compiler: the CMake C++ consumer was not built")
        self.assertTrue(os.path.exists(cpp), "CMake found no C++ compiler but %s exists" % CXX)
        self.assertEqual(sh([cpp], env=self.lib_env()), self.want_cpp)


    def test_build_tree_package_files(self):
        """find_package(merkle) with merkle_DIR=BUILD and pkg-config with
        PKG_CONFIG_PATH=BUILD work without an install."""
        bdir = os.path.join(self.tmp.name, "consumer_build_tree")
        sh(["cmake", "-S", os.path.join(SRC, "tests", "install"), "-B", bdir,
            "-Dmerkle_DIR=" + BUILD, "-DEXAMPLE_SOURCE=" + EXAMPLE])
        sh(["cmake", "--build", bdir])
        env = dict(os.environ, LD_LIBRARY_PATH=BUILD)
        out = sh([os.path.join(bdir, "example_cmake"), self.sample])
        self.assertEqual(out.splitlines()[0] + "\n", self.want_file)
        if CXX is not None:
            self.assertEqual(sh([os.path.join(bdir, "consumer_cpp")]), self.want_cpp)
        penv = dict(os.environ, PKG_CONFIG_PATH=BUILD)
        flags = sh(["pkg-config", "--cflags", "--libs", "merkle"], env=penv).split()
        exe = os.path.join(self.tmp.name, "example_build_tree_pc")
        sh(["cc", "-std=c11", "-Wall", "-Werror", EXAMPLE, "-o", exe] + flags, env=penv)
        out = sh([exe, self.sample], env=env)
        self.assertEqual(out.splitlines()[0] + "\n", self.want_file)


if __name__ == "__main__":
    unittest.main(verbosity=2)
