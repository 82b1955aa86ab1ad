// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finds libmerkle for the crate, with no crates.io dependency (no `cc`, `pkg-config` or
//! `bindgen` crates): the `pkg-config` program reads a merkle.pc, which is either
//!
//! 1. the one named by MERKLE_PKG_CONFIG_PATH or found on PKG_CONFIG_PATH / the system
//!    directories (an installed libmerkle, or a CMake build tree: each build tree writes a
//!    merkle.pc that points at itself), or
//! 2. the one of a CMake build of this repository (../..) made here in OUT_DIR, when no
//!    merkle.pc is found and MERKLE_NO_BUILD is not set.
//!
//! The shared library is linked with an rpath to its directory, so tests and binaries run
//! from the build tree without LD_LIBRARY_PATH.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pkg_config(args: &[&str], path: Option<&Path>) -> Option<String> {
    let mut cmd = Command::new("pkg-config");
    cmd.args(args).arg("merkle");
    if let Some(p) = path {
        let old = env::var("PKG_CONFIG_PATH").unwrap_or_default();
        let joined = if old.is_empty() {
            p.display().to_string()
        } else {
            format!("{}:{}", p.display(), old)
        };
        cmd.env("PKG_CONFIG_PATH", joined);
    }
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn cmake_build(out: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let build = out.join("libmerkle-build");
    let status = Command::new("cmake")
        .arg("-S")
        .arg(&src)
        .arg("-B")
        .arg(&build)
        .args([
            "-DCMAKE_BUILD_TYPE=Release",
            "-DMERKLE_BUILD_CLI=OFF",
            "-DMERKLE_BUILD_TESTS=OFF",
            "-DMERKLE_BUILD_BENCH=OFF",
            "-DMERKLE_BUILD_STATIC=OFF",
        ])
        .status()
        .expect("merkle: cmake not found (install cmake, or point MERKLE_PKG_CONFIG_PATH at a merkle.pc)");
    assert!(status.success(), "merkle: cmake configure of libmerkle failed");
    let status = Command::new("cmake")
        .arg("--build")
        .arg(&build)
        .args(["--target", "merkle_shared", "-j", "2"])
        .status()
        .expect("merkle: cmake --build failed to start");
    assert!(status.success(), "merkle: building libmerkle failed");
    build
}

fn main() {
    println!("cargo:rerun-if-env-changed=MERKLE_PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=MERKLE_NO_BUILD");
    let explicit = env::var_os("MERKLE_PKG_CONFIG_PATH").map(PathBuf::from);
    let mut path = explicit.clone();
    let mut libs = pkg_config(&["--libs"], path.as_deref());
    if libs.is_none() {
        if explicit.is_some() || env::var_os("MERKLE_NO_BUILD").is_some() {
            panic!("merkle: pkg-config finds no merkle.pc (MERKLE_PKG_CONFIG_PATH={:?})", explicit);
        }
        let out = PathBuf::from(env::var("OUT_DIR").unwrap());
        let build = cmake_build(&out);
        path = Some(build);
        libs = pkg_config(&["--libs"], path.as_deref());
    }
    let libs = libs.expect("merkle: no usable merkle.pc");
    for flag in libs.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
            println!("cargo:libdir={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={lib}");
        }
    }
}
