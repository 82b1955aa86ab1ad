// SPDX-License-Identifier: MIT OR Apache-2.0
//! Test support: a small JSON reader (the crate has no dependencies, so no serde), the
//! paths of the shared vectors, and hex helpers.
#![allow(dead_code)]
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    pub fn get(&self, k: &str) -> &Json {
        match self {
            Json::Obj(m) => m.get(k).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    pub fn u64(&self) -> u64 {
        match self {
            Json::Num(n) => *n as u64,
            Json::Str(s) => s.parse().unwrap(),
            other => panic!("not a number: {other:?}"),
        }
    }
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            other => panic!("not an array: {other:?}"),
        }
    }
    pub fn bool(&self) -> bool {
        matches!(self, Json::Bool(true))
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

pub fn parse(s: &str) -> Json {
    let b = s.as_bytes();
    let mut i = 0;
    let v = value(b, &mut i);
    ws(b, &mut i);
    assert_eq!(i, b.len(), "trailing data in JSON");
    v
}

fn ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

fn value(b: &[u8], i: &mut usize) -> Json {
    ws(b, i);
    match b[*i] {
        b'{' => {
            *i += 1;
            let mut m = BTreeMap::new();
            ws(b, i);
            if b[*i] == b'}' {
                *i += 1;
                return Json::Obj(m);
            }
            loop {
                ws(b, i);
                let k = match value(b, i) {
                    Json::Str(s) => s,
                    _ => panic!("object key"),
                };
                ws(b, i);
                assert_eq!(b[*i], b':');
                *i += 1;
                let v = value(b, i);
                m.insert(k, v);
                ws(b, i);
                *i += 1;
                if b[*i - 1] == b'}' {
                    return Json::Obj(m);
                }
            }
        }
        b'[' => {
            *i += 1;
            let mut v = Vec::new();
            ws(b, i);
            if b[*i] == b']' {
                *i += 1;
                return Json::Arr(v);
            }
            loop {
                v.push(value(b, i));
                ws(b, i);
                *i += 1;
                if b[*i - 1] == b']' {
                    return Json::Arr(v);
                }
            }
        }
        b'"' => {
            *i += 1;
            let mut s = String::new();
            loop {
                let c = b[*i];
                *i += 1;
                match c {
                    b'"' => return Json::Str(s),
                    b'\\' => {
                        let e = b[*i];
                        *i += 1;
                        match e {
                            b'n' => s.push('\n'),
                            b't' => s.push('\t'),
                            b'r' => s.push('\r'),
                            b'b' => s.push('\u{8}'),
                            b'f' => s.push('\u{c}'),
                            b'u' => {
                                let h = std::str::from_utf8(&b[*i..*i + 4]).unwrap();
                                *i += 4;
                                s.push(char::from_u32(u32::from_str_radix(h, 16).unwrap()).unwrap_or('?'));
                            }
                            other => s.push(other as char),
                        }
                    }
                    _ => {
                        // copy a whole UTF-8 sequence
                        let start = *i - 1;
                        let mut end = *i;
                        while end < b.len() && (b[end] & 0xc0) == 0x80 {
                            end += 1;
                        }
                        s.push_str(std::str::from_utf8(&b[start..end]).unwrap());
                        *i = end;
                    }
                }
            }
        }
        b't' => {
            *i += 4;
            Json::Bool(true)
        }
        b'f' => {
            *i += 5;
            Json::Bool(false)
        }
        b'n' => {
            *i += 4;
            Json::Null
        }
        _ => {
            let start = *i;
            while *i < b.len() && matches!(b[*i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                *i += 1;
            }
            Json::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
        }
    }
}

/// tests/vectors of the repository.
pub fn repo_vectors(name: &str) -> Json {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors").join(name);
    parse(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// A file of ../shared/vectors beside the repository (data from other projects that is never
/// committed), gunzipped by the system's gzip when it ends in .gz. None (the test then skips
/// with a message) when the directory is absent.
pub fn shared_vectors(name: &str) -> Option<Json> {
    let dir = std::env::var_os("MERKLE_SHARED_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors"));
    let p = dir.join(name);
    if !p.exists() {
        eprintln!("skipped: {} is absent (real-chain data is not in the repository)", p.display());
        return None;
    }
    let text = if name.ends_with(".gz") {
        let out = std::process::Command::new("gzip").arg("-dc").arg(&p).output().expect("gzip");
        assert!(out.status.success(), "gzip -dc {}", p.display());
        String::from_utf8(out.stdout).unwrap()
    } else {
        std::fs::read_to_string(&p).unwrap()
    };
    Some(parse(&text))
}

pub fn h32(s: &str) -> [u8; 32] {
    merkle::unhex(s).unwrap().try_into().expect("32 bytes")
}

/// Leaves of the shared vectors' generators.
pub fn leaves(input: &Json) -> Vec<Vec<u8>> {
    let l = input.get("leaves");
    match l.get("gen").str() {
        "decimal" => (0..l.get("n").u64()).map(|i| i.to_string().into_bytes()).collect(),
        "hex-list" => l.get("leaves").arr().iter().map(|h| merkle::unhex(h.str()).unwrap()).collect(),
        g => panic!("generator {g}"),
    }
}

pub fn counter_bytes(len: u64) -> Vec<u8> {
    (0..len).map(|k| (k % 251) as u8).collect()
}
