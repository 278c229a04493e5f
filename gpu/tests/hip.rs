//! The HIP back end's tests. Host-side tests run everywhere (the embedded bundle, the
//! "no runtime" and "no device" paths, argument errors); the device tests print a skip
//! reason and pass when there is no HIP runtime or no AMD GPU (CI, and every machine this
//! was written on), and on a GPU compare every result with the core by bits.
#![cfg(feature = "hip")]

/// The back end the shared checks run on.
mod backend {
    pub use reprosum_gpu::hip::*;
    use reprosum_gpu::GpuError;
    /// The largest block of the launch checks (512 threads of fold-8 f64 states would not fit 64 KiB of LDS).
    pub const BIG_BLOCK: u32 = 128;
    /// Why the device tests skip.
    pub const NEEDS: &str = "HIP tests need the HIP runtime and an AMD GPU";
    /// Whether an error means there is no driver, runtime or device.
    pub fn absent(e: &GpuError) -> bool {
        matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. })
    }
}

#[path = "gpu_common/mod.rs"]
mod gpu_common;

use gpu_common::*;
use reprosum_gpu::hip::{self, Launch};
use reprosum_gpu::GpuError;

/// The entries of a clang offload bundle: (id, bytes).
fn bundle_entries(b: &[u8]) -> Vec<(String, &[u8])> {
    assert_eq!(&b[..24], b"__CLANG_OFFLOAD_BUNDLE__");
    let rd = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let n = rd(24);
    let mut at = 32;
    let mut out = Vec::new();
    for _ in 0..n {
        let (off, size, idlen) = (rd(at), rd(at + 8), rd(at + 16));
        let id = String::from_utf8(b[at + 24..at + 24 + idlen].to_vec()).unwrap();
        out.push((id, &b[off..off + size]));
        at += 24 + idlen;
    }
    out
}

/// Every value following `key` in a code object's metadata (msgpack positive fixint or
/// uint8/uint16), for `.wavefront_size` and the like.
fn metadata_ints(elf: &[u8], key: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    let mut i = 0;
    while let Some(p) = elf[i..].windows(key.len()).position(|w| w == key) {
        let at = i + p + key.len();
        match elf[at] {
            x @ 0..=0x7f => v.push(x as u32),
            0xcc => v.push(elf[at + 1] as u32),
            0xcd => v.push(u16::from_be_bytes([elf[at + 1], elf[at + 2]]) as u32),
            _ => {}
        }
        i = at;
    }
    v
}

/// Kernels in each code object (the HIP audit counts the same).
const KERNELS: usize = 259;

#[test]
fn bundle_holds_one_code_object_per_target_with_its_wave_width() {
    let entries = bundle_entries(hip::bundle());
    let ids: Vec<&str> = entries.iter().map(|(id, _)| id.as_str()).collect();
    let mut want = vec!["host-x86_64-unknown-linux".to_string()];
    want.extend(
        hip::TARGETS
            .iter()
            .map(|t| format!("hipv4-amdgcn-amd-amdhsa--{t}")),
    );
    assert_eq!(ids, want);
    for (id, elf) in &entries[1..] {
        let target = id.rsplit("--").next().unwrap();
        // ELF64, little-endian, EM_AMDGPU (224), OS/ABI AMDGPU_HSA (64), ABI version 2
        // (code object v4).
        assert_eq!(&elf[..4], b"\x7fELF", "{id}");
        assert_eq!((elf[4], elf[5], elf[7], elf[8]), (2, 1, 64, 2), "{id}");
        assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 224, "{id}");
        // e_flags: EF_AMDGPU_MACH of the target in the low byte.
        let mach = u32::from_le_bytes(elf[48..52].try_into().unwrap()) & 0xff;
        let want_mach = match target {
            "gfx906" => 0x2f,
            "gfx908" => 0x30,
            "gfx90a" => 0x3f,
            "gfx1030" => 0x36,
            t => panic!("unexpected target {t}"),
        };
        assert_eq!(mach, want_mach, "{id}");
        // Every kernel's metadata records the wavefront width it was compiled for: 64 on
        // GCN/CDNA, 32 on RDNA (HIP's default there).
        let waves = metadata_ints(elf, b".wavefront_size");
        let want_wave = if target.starts_with("gfx10") { 32 } else { 64 };
        assert_eq!(
            waves.len(),
            KERNELS,
            "{id}: the kernels the HIP audit counts (gpu/scripts/hip-audit.py)"
        );
        assert!(waves.iter().all(|&w| w == want_wave), "{id}: {waves:?}");
        // Every kernel takes 1024 threads (the kernels are correct for any block size up to
        // that).
        let flat = metadata_ints(elf, b".max_flat_workgroup_size");
        assert!(
            flat.len() == KERNELS && flat.iter().all(|&f| f == 1024),
            "{id}: {flat:?}"
        );
        println!(
            "{target}: {} bytes, {KERNELS} kernels, wave{want_wave}",
            elf.len()
        );
    }
}

#[test]
fn probe_expectations_are_the_ieee_results() {
    let (in64, in32, w64, w32) = hip::probe_cases();
    assert_eq!((in64.len(), in32.len(), w64.len(), w32.len()), (28, 24, 12, 16));
    // Subnormal results are kept, ties go to even, signed zeros are exact.
    assert_eq!(w64[0], 2);
    assert_eq!(w64[2], 0x3FF0_0000_0000_0000);
    assert_eq!(w64[3], 0x3FF0_0000_0000_0002);
    assert_eq!(w64[4], 0x8000_0000_0000_0000);
    assert_eq!(w64[11], 1);
    assert_eq!(w32[8], 0x0040_0000);
    assert_eq!(w32[14], 1);
}

#[test]
fn a_missing_runtime_is_an_error_value() {
    let r = hip::try_load(&[
        "libreprosum-no-such-hip-runtime.so",
        "/nonexistent/libamdhip64.so.9",
    ]);
    assert_eq!(r, Err(GpuError::NoRuntime(reprosum_gpu::Api::Hip)));
    println!("missing runtime: {}", GpuError::NoRuntime(reprosum_gpu::Api::Hip));
}

#[test]
fn no_runtime_or_device_is_an_error_value() {
    // Must return (Ok on an AMD GPU machine, an error elsewhere), never panic.
    match hip::runtime_version() {
        Ok((lib, v)) => println!("HIP runtime: {lib}, version {v}"),
        Err(e) => println!("SKIP HIP runtime: {e}"),
    }
    match hip::device(0) {
        Ok(d) => println!(
            "device 0: {} ({}, wave{}, {} CUs)",
            d.name(),
            d.arch(),
            d.warp_size(),
            d.cu_count()
        ),
        Err(e) => {
            assert!(
                matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. }),
                "{e}"
            );
            println!("SKIP device work: {e}");
        }
    }
    let xs = [1.0f64, 2.0, 3.0];
    // SAFETY: xs is a live host slice of 3 values; the default stream.
    let r = unsafe { hip::sum_ptr(xs.as_ptr(), xs.len(), 3, std::ptr::null_mut()) };
    match r {
        Ok(v) => assert_eq!(v.to_bits(), 6.0f64.to_bits()),
        Err(e) => {
            assert!(
                matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. }),
                "{e}"
            );
            println!("SKIP sum_ptr on a device: {e}");
        }
    }
    let mut out = [f64::from_bits(0xA5A5_A5A5_A5A5_A5A5); 3];
    // SAFETY: two host slices of 3 values.
    let r = unsafe { hip::cumsum_ptr(xs.as_ptr(), out.as_mut_ptr(), 3, 3, std::ptr::null_mut()) };
    match r {
        Ok(()) => assert_eq!(out.map(f64::to_bits), [1.0f64, 3.0, 6.0].map(f64::to_bits)),
        Err(e) => {
            assert!(
                matches!(e, GpuError::NoRuntime(_) | GpuError::NoDevice { .. }),
                "{e}"
            );
            // Untouched on error.
            assert!(out.iter().all(|v| v.to_bits() == 0xA5A5_A5A5_A5A5_A5A5));
        }
    }
    // Partly overlapping input and output are refused before any device work.
    let mut buf = [1.0f64; 8];
    let p = buf.as_mut_ptr();
    // SAFETY: both ranges lie inside buf; the call refuses them before reading.
    let r = unsafe { hip::cumsum_ptr(p, p.wrapping_add(1), 4, 3, std::ptr::null_mut()) };
    assert!(matches!(r, Err(GpuError::Overlap(_))), "{r:?}");
    // Fold errors come before any device work.
    // SAFETY: as above.
    let r = unsafe { hip::sum_ptr(xs.as_ptr(), xs.len(), 53, std::ptr::null_mut()) };
    assert_eq!(r, Err(GpuError::UnsupportedFold(53)));
}

// The device tests both back ends run (their names and bodies are the same for both).
include!("gpu_common/device_tests.rs");
