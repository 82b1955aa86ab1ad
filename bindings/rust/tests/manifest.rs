// SPDX-License-Identifier: MIT OR Apache-2.0
// Checksum manifests through the binding: parsing (GNU, BSD, malformed lines), digests
// against the digests module and known answers, check verdicts on real files (OK, FAILED,
// missing, unreadable), the validation cache round trip, and coreutils' line format.
use merkle::manifest::{self, Alg, Cache, CheckStatus, Manifest};
use merkle::{hex, Status};
use std::fs;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("merkle-rs-{}-{}", name, std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn known_digests() {
    // FIPS 180 / RFC 1321 / RFC 7693 "abc"
    let cases = [
        (Alg::Md5, "900150983cd24fb0d6963f7d28e17f72"),
        (Alg::Sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (Alg::Sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Alg::Sha512, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        (Alg::Blake2b, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"),
    ];
    for (alg, want) in cases {
        assert_eq!(hex(&manifest::digest(alg, b"abc", 0).unwrap()), want, "{alg:?}");
        assert_eq!(alg.digest_len() * 2, want.len());
    }
    assert_eq!(manifest::digest(Alg::Blake2b, b"abc", 65).unwrap_err().status(), Status::Arg);
}

#[test]
fn parse_forms_and_bad_lines() {
    let abc = hex(&merkle::hash::sha256(b"abc"));
    let text = format!(
        "{abc}  plain\n{abc} *star\n# comment\nnot a line\nSHA256 (tagged) = {abc}\n\n{} short\n",
        &abc[..10]
    );
    let m = Manifest::parse(text.as_bytes()).unwrap();
    let got: Vec<_> = m.entries().map(|e| (e.name().to_vec(), e.line(), e.binary(), e.bsd())).collect();
    assert_eq!(
        got,
        vec![(b"plain".to_vec(), 1, false, false), (b"star".to_vec(), 2, true, false), (b"tagged".to_vec(), 5, false, true)]
    );
    assert_eq!(m.bad_lines(), &[4, 7]);
    assert_eq!(m.lines(), 7);
    assert!(m.entries().all(|e| e.alg() == Alg::Sha256 && e.digest() == merkle::hash::sha256(b"abc")));
    // only MD5 accepted: every SHA-256 line is malformed
    let md5 = Manifest::parse_with(text.as_bytes(), Alg::Md5, 0).unwrap();
    assert!(md5.is_empty());
    assert_eq!(Manifest::parse(b"").unwrap().len(), 0);
}

#[test]
fn check_files_and_cache() {
    let d = scratch("check");
    fs::write(d.join("good"), b"hello\n").unwrap();
    fs::write(d.join("bad"), b"changed\n").unwrap();
    let mut list = String::new();
    for name in ["good", "bad", "gone"] {
        let dig = manifest::digest(Alg::Sha256, b"hello\n", 0).unwrap();
        list += &manifest::format_line(Alg::Sha256, &dig, name, false, false).unwrap();
    }
    assert_eq!(list.lines().next().unwrap(), format!("{}  good", hex(&manifest::digest(Alg::Sha256, b"hello\n", 0).unwrap())));
    let m = Manifest::parse(list.as_bytes()).unwrap();
    for threads in [1, 2, 0] {
        let r = m.check(Some(&d), threads, None).unwrap();
        let st: Vec<_> = r.iter().map(|x| x.status).collect();
        assert_eq!(st, vec![CheckStatus::Ok, CheckStatus::Mismatch, CheckStatus::Missing], "threads {threads}");
        assert_eq!(r[0].size, 6);
        assert_eq!(r[1].digest, manifest::digest(Alg::Sha256, b"changed\n", 0).unwrap());
    }
    // digest_file agrees with the in-memory digest
    assert_eq!(manifest::digest_file(&d.join("bad"), Alg::Md5, 0).unwrap(), manifest::digest(Alg::Md5, b"changed\n", 0).unwrap());
    assert_eq!(manifest::digest_file(&d.join("gone"), Alg::Md5, 0).unwrap_err().status(), Status::Io);

    // the cache: a second check answers the unchanged OK file from the cache, after a save
    // and a load into a new cache
    let cpath = d.join("cache");
    let mut c = Cache::new(Some(b"key")).unwrap();
    assert_eq!(c.load(&cpath).unwrap(), 0);
    let r = m.check(Some(&d), 1, Some(&mut c)).unwrap();
    assert!(!r[0].from_cache);
    c.save(&cpath).unwrap();
    let mut c2 = Cache::new(Some(b"key")).unwrap();
    assert_eq!(c2.load(&cpath).unwrap(), 1);
    // file times of the first check may be "racy" (same second as the record): the library
    // then reads the file again; either way the verdict stays OK
    let r2 = m.check(Some(&d), 1, Some(&mut c2)).unwrap();
    assert_eq!(r2[0].status, CheckStatus::Ok);
    assert_eq!(r2[1].status, CheckStatus::Mismatch);
    // a file that is not a cache is refused, never overwritten
    let mut c3 = Cache::new(None).unwrap();
    assert_eq!(c3.load(&d.join("good")).unwrap_err().status(), Status::Unsafe);
    assert_eq!(c3.save(&d.join("good")).unwrap_err().status(), Status::Unsafe);
    assert_eq!(fs::read(d.join("good")).unwrap(), b"hello\n");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn format_like_coreutils() {
    let dig = manifest::digest(Alg::Md5, b"", 0).unwrap();
    assert_eq!(manifest::format_line(Alg::Md5, &dig, "a b", false, false).unwrap(), "d41d8cd98f00b204e9800998ecf8427e  a b\n");
    assert_eq!(manifest::format_line(Alg::Md5, &dig, "x", false, true).unwrap(), "d41d8cd98f00b204e9800998ecf8427e *x\n");
    assert_eq!(manifest::format_line(Alg::Md5, &dig, "x", true, false).unwrap(), "MD5 (x) = d41d8cd98f00b204e9800998ecf8427e\n");
    // a newline in the name is escaped as md5sum does (leading backslash)
    assert_eq!(manifest::format_line(Alg::Md5, &dig, "a\nb", false, false).unwrap(), "\\d41d8cd98f00b204e9800998ecf8427e  a\\nb\n");
    assert_eq!(manifest::format_line(Alg::Md5, &dig[..3], "x", false, false).unwrap_err().status(), Status::Arg);
}
