//! Passes the target triple to the program, which prints it.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=REPROSUM_CROSS_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
