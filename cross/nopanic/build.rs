//! On Linux the program is its own entry point (`_start`, no C start-up files): it is a
//! `no_std`, `no_main` binary that the C toolchain links with `-nostartfiles`. The C
//! library is still linked (for `memcpy` and friends) but never initialised by the program.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-nostartfiles");
        println!("cargo:rustc-link-arg-bins=-lc");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
