// SPDX-License-Identifier: MIT OR Apache-2.0
//! The library's status codes as a Rust error.
use crate::ffi;
use std::fmt;

/// What went wrong, one variant per `merkle_status` of the C library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// An argument is invalid (bad enum, zero leaf size, ...).
    Arg,
    /// An output buffer was too small (the binding sizes buffers itself: seen only on a bug).
    Buffer,
    /// Input is malformed (bad hex, bad encoding, truncated).
    Format,
    /// A proof or digest did not verify.
    Verify,
    /// Reading or writing failed.
    Io,
    /// An allocation failed.
    NoMem,
    /// An index, size or count is out of range.
    Range,
    /// A limit (size, depth, node count) was reached.
    Limit,
    /// Not available in this build or on this CPU.
    Unsupported,
    /// The object is not in a state that allows the call.
    State,
    /// Refused as unsafe (would overwrite or follow what is not ours).
    Unsafe,
    /// A status this binding does not know (a newer library).
    Other(i32),
}

impl Status {
    pub(crate) fn from_code(code: i32) -> Status {
        match code {
            -1 => Status::Arg,
            -2 => Status::Buffer,
            -3 => Status::Format,
            -4 => Status::Verify,
            -5 => Status::Io,
            -6 => Status::NoMem,
            -7 => Status::Range,
            -8 => Status::Limit,
            -9 => Status::Unsupported,
            -10 => Status::State,
            -11 => Status::Unsafe,
            c => Status::Other(c),
        }
    }
    /// The C library's code for this status.
    pub fn code(self) -> i32 {
        match self {
            Status::Arg => -1,
            Status::Buffer => -2,
            Status::Format => -3,
            Status::Verify => -4,
            Status::Io => -5,
            Status::NoMem => -6,
            Status::Range => -7,
            Status::Limit => -8,
            Status::Unsupported => -9,
            Status::State => -10,
            Status::Unsafe => -11,
            Status::Other(c) => c,
        }
    }
}

/// An error of the library: its status, a message, and the byte offset (or line) where the
/// input was wrong when the library said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
    offset: Option<u64>,
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn new(status: Status, message: &str) -> Error {
        Error { status, message: message.to_string(), offset: None }
    }
    pub(crate) fn from_code(code: i32) -> Error {
        // SAFETY: merkle_strerror returns a static NUL-terminated string for every code.
        let msg = unsafe { std::ffi::CStr::from_ptr(ffi::merkle_strerror(code)) };
        Error::new(Status::from_code(code), &msg.to_string_lossy())
    }
    pub(crate) fn from_detail(code: i32, e: &ffi::merkle_error) -> Error {
        let mut err = Error::from_code(code);
        let bytes: Vec<u8> = e.message.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        if !bytes.is_empty() {
            err.message = String::from_utf8_lossy(&bytes).into_owned();
        }
        if e.offset != 0 || e.line != 0 {
            err.offset = Some(e.offset);
        }
        err
    }
    /// The status code.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The library's message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// Byte offset of the fault in the input, when the library reported one.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} (at offset {})", self.message, o),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::Other, e)
    }
}

/// Turn a status code into `Ok(())` or the error.
pub(crate) fn check(code: i32) -> Result<()> {
    if code == ffi::MERKLE_OK {
        Ok(())
    } else {
        Err(Error::from_code(code))
    }
}

/// As [`check`], with the detail the library wrote into `e`.
pub(crate) fn check_detail(code: i32, e: &ffi::merkle_error) -> Result<()> {
    if code == ffi::MERKLE_OK {
        Ok(())
    } else {
        Err(Error::from_detail(code, e))
    }
}
