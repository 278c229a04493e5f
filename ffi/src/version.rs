//! The library's version: `ADN_VERSION_MAJOR`, `ADN_VERSION_MINOR`, `ADN_VERSION_PATCH`
//! (compile time, the header the program was built with) and [`adn_version`] (run time, the
//! library it runs with).
//!
//! The header's constants are literals (cbindgen cannot evaluate `env!`); the assertions
//! below keep them equal to the package version (the workspace's `version`), so a version
//! bump that forgets them does not build. The shared library's SONAME is derived from the
//! same version (`ffi/build.rs`).

use core::ffi::{c_char, CStr};

/// The major version of the header. Compare the three with `adn_version()` to find a
/// program built with a header of another version than the library it runs with.
pub const ADN_VERSION_MAJOR: u32 = 0;
/// The minor version of the header. While the major version is 0 a new minor version may
/// change the ABI, so the shared library's SONAME has both (`libreprosum.so.0.MINOR`).
pub const ADN_VERSION_MINOR: u32 = 1;
/// The patch version of the header.
pub const ADN_VERSION_PATCH: u32 = 0;

/// The package version, `"MAJOR.MINOR.PATCH"`, NUL-terminated.
const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
    Ok(s) => s,
    Err(_) => panic!("the package version contains a NUL byte"),
};

/// A decimal number's value at compile time (cargo gives the version parts as strings).
const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    assert!(!b.is_empty(), "empty version part");
    let mut v: u32 = 0;
    let mut i = 0;
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "a version part is not a number");
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

const _: () = {
    assert!(ADN_VERSION_MAJOR == parse_u32(env!("CARGO_PKG_VERSION_MAJOR")));
    assert!(ADN_VERSION_MINOR == parse_u32(env!("CARGO_PKG_VERSION_MINOR")));
    assert!(ADN_VERSION_PATCH == parse_u32(env!("CARGO_PKG_VERSION_PATCH")));
    // No pre-release or build suffix: adn_version() is exactly the three numbers.
    assert!(env!("CARGO_PKG_VERSION_PRE").is_empty());
};

/// The version of the library, `"MAJOR.MINOR.PATCH"` (as `"0.1.0"`): equal to
/// `ADN_VERSION_MAJOR.ADN_VERSION_MINOR.ADN_VERSION_PATCH` when the program runs with the
/// library its header came from. The text is static (never freed by the caller) and never
/// NULL.
#[no_mangle]
pub extern "C" fn adn_version() -> *const c_char {
    crate::panic::boundary(c"unknown (panic in adn_version)".as_ptr(), || VERSION.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version_text() -> String {
        // SAFETY: adn_version returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(adn_version()) }
            .to_str()
            .expect("the version is UTF-8")
            .to_owned()
    }

    #[test]
    fn constants_are_the_package_version() {
        let part = |s: &str| s.parse::<u32>().unwrap();
        assert_eq!(ADN_VERSION_MAJOR, part(env!("CARGO_PKG_VERSION_MAJOR")));
        assert_eq!(ADN_VERSION_MINOR, part(env!("CARGO_PKG_VERSION_MINOR")));
        assert_eq!(ADN_VERSION_PATCH, part(env!("CARGO_PKG_VERSION_PATCH")));
        assert_eq!(version_text(), env!("CARGO_PKG_VERSION"));
        assert_eq!(
            version_text(),
            format!("{ADN_VERSION_MAJOR}.{ADN_VERSION_MINOR}.{ADN_VERSION_PATCH}")
        );
    }

    /// The workspace's `[workspace.package] version`, read from the file (the crate's
    /// version is `version.workspace = true`).
    #[test]
    fn constants_are_the_workspace_version() {
        let toml = include_str!("../../Cargo.toml");
        let section = toml
            .split("\n[")
            .find(|s| s.starts_with("workspace.package]"))
            .expect("Cargo.toml has [workspace.package]");
        let version = section
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == "version").then(|| v.trim().trim_matches('"').to_owned())
            })
            .expect("[workspace.package] has a version");
        assert_eq!(version, version_text());
        assert!(include_str!("../Cargo.toml").contains("version.workspace = true"));
    }

    #[test]
    fn parse_u32_reads_decimal_numbers() {
        assert_eq!(parse_u32("0"), 0);
        assert_eq!(parse_u32("7"), 7);
        assert_eq!(parse_u32("120"), 120);
    }

    #[test]
    fn header_has_the_macros_and_the_function() {
        let h = include_str!("../../include/reprosum.h");
        for (name, v) in [
            ("ADN_VERSION_MAJOR", ADN_VERSION_MAJOR),
            ("ADN_VERSION_MINOR", ADN_VERSION_MINOR),
            ("ADN_VERSION_PATCH", ADN_VERSION_PATCH),
        ] {
            assert!(
                h.contains(&format!("#define {name} {v}\n")),
                "{name} {v} not in reprosum.h"
            );
        }
        assert!(h.contains("const char *adn_version(void);"));
    }
}
