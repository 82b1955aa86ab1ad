# SPDX-License-Identifier: MIT OR Apache-2.0
"""setuptools glue shared by ./setup.py (pip install .) and python/setup.py
(pip install ./python): the Python package python/merkle plus libmerkle.so.1, built with
CMake from the same source tree and put inside the package, so that `import merkle` needs
neither MERKLE_LIBRARY nor an installed libmerkle1; and the compiled binding merkle._native
(python/merkle/_native.c; needs Python's headers, Debian: python3-dev).

Offline: the build backend is setuptools + wheel (Debian: python3-setuptools,
python3-wheel), used with `pip install --no-build-isolation --no-index`. Needs cmake, a C
compiler and pkg-config, as the C build does.
Environment: MERKLE_CMAKE_ARGS (extra -D options, split on blanks),
CMAKE_BUILD_PARALLEL_LEVEL (build jobs; default: all cores).
"""
import glob
import os
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

SONAME = "libmerkle.so.1"


def project_version(source_dir):
    with open(os.path.join(source_dir, "CMakeLists.txt")) as f:
        m = re.search(r"project\(merkle\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("no project(merkle VERSION ...) in CMakeLists.txt")
    return m.group(1)


class BinaryDistribution(Distribution):
    """The package carries a shared library: the wheel is platform-specific."""

    def has_ext_modules(self):
        return True


def build_library(cmd, source_dir):
    """Build libmerkle.so.1 with CMake (once per build) and return the CMake build folder."""
    build_temp = os.path.abspath(cmd.get_finalized_command("build").build_temp)
    cmake_dir = os.path.join(build_temp, "libmerkle")
    if getattr(build_library, "done", None) == cmake_dir:
        return cmake_dir
    args = ["cmake", "-S", source_dir, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release",
            "-DMERKLE_BUILD_STATIC=OFF", "-DMERKLE_BUILD_CLI=OFF",
            "-DMERKLE_BUILD_TESTS=OFF", "-DBUILD_TESTING=OFF", "-DMERKLE_BUILD_BENCH=OFF"]
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    args += os.environ.get("MERKLE_CMAKE_ARGS", "").split()
    cmd.announce("building libmerkle: " + " ".join(args), level=2)
    subprocess.run(args, check=True)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.run(["cmake", "--build", cmake_dir, "--target", "merkle_shared",
                    "--parallel", jobs], check=True)
    build_library.done = cmake_dir
    return cmake_dir


def make_build_py(source_dir):
    class BuildPyWithLibrary(build_py):
        """build_py, then CMake builds only the shared library into the package."""

        def run(self):
            super().run()
            cmake_dir = build_library(self, source_dir)
            dest = os.path.join(self.build_lib, "merkle", SONAME)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(os.path.join(cmake_dir, SONAME), dest)  # the file, not the link
            os.chmod(dest, 0o755)

    return BuildPyWithLibrary


def make_build_ext(source_dir):
    class BuildExtAgainstLibrary(build_ext):
        """merkle._native links the libmerkle.so.1 CMake built (found at run time next to
        the module: rpath $ORIGIN)."""

        def run(self):
            cmake_dir = build_library(self, source_dir)
            for ext in self.extensions:
                ext.include_dirs += [os.path.join(source_dir, "include"),
                                     os.path.join(cmake_dir, "include")]
                ext.library_dirs.append(cmake_dir)
            super().run()

    return BuildExtAgainstLibrary


def main(source_dir, package_root):
    """source_dir: the top of the merkle source tree; package_root: the folder that holds
    the merkle package, relative to the setup.py being run."""
    source_dir = os.path.abspath(source_dir)
    with open(os.path.join(source_dir, "python", "README.md")) as f:
        long_description = f.read()
    setup(
        name="merkle",
        version=project_version(source_dir),
        description="Merkle trees, proofs, tries, CLVM trees and checksum manifests "
                    "(bindings of libmerkle, which the package carries)",
        long_description=long_description,
        long_description_content_type="text/markdown",
        license="MIT OR Apache-2.0",
        python_requires=">=3.8",
        package_dir={"": package_root},
        packages=["merkle"],
        package_data={"merkle": ["py.typed", "*.pyi"]},
        ext_modules=[Extension(
            "merkle._native",
            sorted(glob.glob(os.path.join(package_root, "merkle", "_native*.c"))),
            libraries=["merkle"], runtime_library_dirs=["$ORIGIN"])],
        distclass=BinaryDistribution,
        cmdclass={"build_py": make_build_py(source_dir),
                  "build_ext": make_build_ext(source_dir)},
        zip_safe=False,
        classifiers=[
            "License :: OSI Approved :: MIT License",
            "License :: OSI Approved :: Apache Software License",
            "Operating System :: POSIX :: Linux",
            "Programming Language :: C",
            "Programming Language :: Python :: 3",
            "Typing :: Typed",
        ],
    )
