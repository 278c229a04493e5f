//! Quoting bytes from files and the command line for one-line error messages.
//!
//! Nothing that reaches the terminal through an error message is raw input: printable
//! characters stay as they are, control characters become Rust escapes (`\n`, `\t`,
//! `\u{1b}`), and bytes that are not UTF-8 become `\xNN`.

/// At most this many characters of an input token are quoted in a message.
pub const QUOTE_MAX: usize = 40;

/// `bytes` escaped for a message: valid UTF-8 as [`char::escape_debug`] writes it (so
/// `'` and `"` and `\` are escaped too), every other byte as `\xNN`; cut after `max`
/// source characters, with `...` appended when cut.
///
/// ```
/// use reprosum_cli::escape::escape_bytes;
/// assert_eq!(escape_bytes(b"1.5x", 40), "1.5x");
/// assert_eq!(escape_bytes(b"a\x1b[31mb\xff", 40), "a\\u{1b}[31mb\\xFF");
/// assert_eq!(escape_bytes(b"abcdef", 3), "abc...");
/// ```
pub fn escape_bytes(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    let mut shown = 0usize;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if shown == max {
                out.push_str("...");
                return out;
            }
            out.extend(c.escape_debug());
            shown += 1;
        }
        for &b in chunk.invalid() {
            if shown == max {
                out.push_str("...");
                return out;
            }
            out.push_str(&format!("\\x{b:02X}"));
            shown += 1;
        }
    }
    out
}

/// A message made safe for the terminal: control characters escaped, the rest kept (used
/// on messages that may hold text from elsewhere, such as clap's).
///
/// ```
/// use reprosum_cli::escape::sanitize;
/// assert_eq!(sanitize("bad \u{1b}[2J name"), "bad \\u{1b}[2J name");
/// assert_eq!(sanitize("caf\u{e9} 'x'"), "caf\u{e9} 'x'");
/// ```
pub fn sanitize(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    for c in msg.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// A file name for a message: its bytes escaped, uncut.
pub fn path(p: &std::path::Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        escape_bytes(p.as_os_str().as_bytes(), usize::MAX)
    }
    #[cfg(not(unix))]
    {
        sanitize(&p.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_quotes_and_bad_bytes() {
        assert_eq!(escape_bytes(b"", 40), "");
        assert_eq!(escape_bytes(b"it's", 40), "it\\'s");
        assert_eq!(escape_bytes(b"\x00\x7f\r\n", 40), "\\0\\u{7f}\\r\\n");
        assert_eq!(escape_bytes(b"\xe2\x82", 40), "\\xE2\\x82");
        assert_eq!(escape_bytes("\u{e9}t\u{e9}".as_bytes(), 40), "\u{e9}t\u{e9}");
        // Cut by characters, not bytes; the marker only when something was left out.
        assert_eq!(
            escape_bytes("\u{e9}\u{e9}\u{e9}".as_bytes(), 2),
            "\u{e9}\u{e9}..."
        );
        assert_eq!(escape_bytes(b"abc", 3), "abc");
        assert_eq!(escape_bytes(b"\xff\xff\xff\xff", 2), "\\xFF\\xFF...");
    }

    #[test]
    fn no_output_has_a_control_character() {
        let all: Vec<u8> = (0..=255u8).collect();
        let s = escape_bytes(&all, usize::MAX);
        assert!(!s.chars().any(char::is_control), "{s}");
        assert!(!sanitize("a\u{7}b\u{9b}c").chars().any(char::is_control));
    }
}
