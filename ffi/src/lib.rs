//! The C ABI of reprosum (placeholder until the C library lands).
