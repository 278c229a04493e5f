//! Gives `libreprosum.so` its SONAME, as cargo-c (`cargo cinstall`) would: the version
//! part that semver says stays compatible. 0.0.z: `0.0.z`; 0.y.z: `0.y`; x.y.z (x > 0): `x`.
//! So 0.1.0 is `libreprosum.so.0.1` (a 0.2 may break the ABI; a 0.1.1 may not). The
//! installed files (`ffi/install.sh`) are the library as `libreprosum.so.0.1.0` and the
//! links `libreprosum.so.0.1` and `libreprosum.so` to it.
//!
//! ELF targets only; other targets' shared libraries keep rustc's defaults.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("cargo sets {k}"));
    let (major, minor, patch) = (
        var("CARGO_PKG_VERSION_MAJOR"),
        var("CARGO_PKG_VERSION_MINOR"),
        var("CARGO_PKG_VERSION_PATCH"),
    );
    let sover = match (major.as_str(), minor.as_str()) {
        ("0", "0") => format!("0.0.{patch}"),
        ("0", _) => format!("0.{minor}"),
        _ => major,
    };
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = matches!(
        os.as_str(),
        "linux" | "freebsd" | "dragonfly" | "netbsd" | "openbsd" | "illumos" | "hurd"
    );
    if elf {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libreprosum.so.{sover}");
    }
}
