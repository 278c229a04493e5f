//! The `reprosum` command (placeholder until the CLI lands).
fn main() {}
