//! The C and C++ programs as tests: builds `libreprosum.a` (release), compiles
//! `examples-c/sum.c`, `examples-c/sum.cpp` and `ffi/tests/c/test_ffi.c` against it (by its
//! path, so a shared library cannot be picked up instead), runs them, and checks every bit
//! pattern they print against the known answers and against reprosum-core; and checks the
//! shared library's SONAME.
//!
//! Needs a C and a C++ compiler (`$CC` / `$CXX`, default `cc` / `c++`); without them the
//! tests fail rather than skip. Not run under miri (it cannot run a compiler).

use reprosum_core::{Dtype, DynAccumulator};
use reprosum_testkit::{cases, Case, KNOWN_ANSWERS};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The system libraries a Rust static library needs (`--print native-static-libs`).
#[cfg(target_os = "linux")]
const NATIVE_LIBS: &[&str] = &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];
#[cfg(target_os = "macos")]
const NATIVE_LIBS: &[&str] = &["-lSystem", "-lc", "-lm"];
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
const NATIVE_LIBS: &[&str] = &["-lpthread", "-lm", "-ldl", "-lc"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds the static library once (release) and returns its path.
fn static_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .current_dir(workspace())
            .args([
                "build",
                "-p",
                "reprosum-ffi",
                "--release",
                "--message-format=json-render-diagnostics",
            ])
            .output()
            .expect("run cargo build");
        assert!(
            out.status.success(),
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The staticlib's path from cargo's artifact messages (respects CARGO_TARGET_DIR and
        // any configured target directory).
        let text = String::from_utf8_lossy(&out.stdout);
        let path = text
            .lines()
            .filter(|l| l.contains("\"reason\":\"compiler-artifact\"") && l.contains("reprosum-ffi"))
            .flat_map(|l| l.split('"'))
            .find(|s| s.ends_with("libreprosum.a"))
            .expect("cargo reported no libreprosum.a");
        PathBuf::from(path)
    })
}

/// A directory for the compiled programs, beside the library.
fn out_dir() -> PathBuf {
    let d = static_lib().parent().unwrap().join("c-programs");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compiles one program with `compiler` (and the language flags) against the static library.
fn compile(compiler_env: &str, default: &str, std_flag: &str, src: &str, name: &str) -> PathBuf {
    compile_with(compiler_env, default, std_flag, src, name, &[])
}

/// [`compile`] with extra compiler flags.
fn compile_with(
    compiler_env: &str,
    default: &str,
    std_flag: &str,
    src: &str,
    name: &str,
    extra: &[&str],
) -> PathBuf {
    let ws = workspace();
    let exe = out_dir().join(name);
    let cc = std::env::var(compiler_env).unwrap_or_else(|_| default.into());
    let out = Command::new(&cc)
        .current_dir(&ws)
        .args([
            std_flag,
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-ffp-contract=off",
        ])
        .args(extra)
        .arg("-I")
        .arg(ws.join("include"))
        .arg("-I")
        .arg(ws.join("examples-c"))
        .arg(ws.join(src))
        .arg(static_lib())
        .args(NATIVE_LIBS)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the compiler `{cc}` (set {compiler_env}): {e}"));
    assert!(
        out.status.success(),
        "{cc} {src} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, args: &[PathBuf]) -> (Output, String) {
    let out = Command::new(exe).args(args).output().expect("run the program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

fn case(name: &str) -> Case<'static> {
    cases(KNOWN_ANSWERS)
        .map(|c| c.expect("known answers parse"))
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no known-answer case {name}"))
}

/// The core's sum, cumulative sum and encoding of a case's input.
fn core_results(c: &Case<'_>) -> (u64, Vec<u64>, Vec<u8>) {
    match c.dtype {
        Dtype::F64 => {
            let x: Vec<f64> = c.inputs_f64().collect();
            let mut a = DynAccumulator::<f64>::new(c.fold).unwrap();
            a.add_slice(&x).unwrap();
            let mut cum = vec![0.0; x.len()];
            reprosum_core::cumsum_fold(&x, &mut cum, c.fold).unwrap();
            let sum = reprosum_core::sum_fold(&x, c.fold).unwrap().to_bits();
            (
                sum,
                cum.iter().map(|v| v.to_bits()).collect(),
                a.to_bytes().as_bytes().to_vec(),
            )
        }
        Dtype::F32 => {
            let x: Vec<f32> = c.inputs_f32().collect();
            let mut a = DynAccumulator::<f32>::new(c.fold).unwrap();
            a.add_slice(&x).unwrap();
            let mut cum = vec![0.0; x.len()];
            reprosum_core::cumsum_fold(&x, &mut cum, c.fold).unwrap();
            let sum = reprosum_core::sum_fold(&x, c.fold).unwrap().to_bits() as u64;
            (
                sum,
                cum.iter().map(|v| v.to_bits() as u64).collect(),
                a.to_bytes().as_bytes().to_vec(),
            )
        }
    }
}

/// Checks every `case NAME sum|cumsum|bytes ...` line; returns how many lines were checked.
fn check_case_lines(program: &str, stdout: &str) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with("case ")) {
        let mut w = line.split_ascii_whitespace().skip(1);
        let (name, kind) = (w.next().unwrap(), w.next().unwrap_or(""));
        let vals: Vec<&str> = w.collect();
        let c = case(name);
        let (core_sum, core_cum, core_bytes) = core_results(&c);
        match kind {
            "sum" => {
                let got = u64::from_str_radix(vals[0], 16).unwrap();
                if got != c.sum || got != core_sum {
                    failures.push(format!("{line}: known {:X}, core {core_sum:X}", c.sum));
                }
            }
            "cumsum" => {
                let got: Vec<u64> = vals.iter().map(|v| u64::from_str_radix(v, 16).unwrap()).collect();
                let known: Option<Vec<u64>> = c.cumsum().map(|it| it.collect());
                if got != core_cum || known.is_some_and(|k| k != got) {
                    failures.push(format!("{line}: core {core_cum:X?}"));
                }
            }
            "bytes" => {
                let hex: String = core_bytes.iter().map(|b| format!("{b:02X}")).collect();
                if vals.first() != Some(&hex.as_str()) {
                    failures.push(format!("{line}: core {hex}"));
                }
            }
            other => failures.push(format!("{line}: unknown kind {other}")),
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{program}:\n{}", failures.join("\n"));
    checked
}

#[test]
#[cfg_attr(miri, ignore = "runs a C compiler")]
fn c_example() {
    let exe = compile("CC", "cc", "-std=c11", "examples-c/sum.c", "sum");
    let (out, stdout) = run(&exe, &[]);
    assert!(
        out.status.success(),
        "sum failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = check_case_lines("sum.c", &stdout);
    assert!(n >= 9, "sum.c printed {n} case lines:\n{stdout}");
    assert!(stdout.contains("status 4 "), "{stdout}");
}

#[test]
#[cfg_attr(miri, ignore = "runs a C++ compiler")]
fn cpp_example() {
    let exe = compile("CXX", "c++", "-std=c++17", "examples-c/sum.cpp", "sum_cpp");
    let (out, stdout) = run(&exe, &[]);
    assert!(
        out.status.success(),
        "sum_cpp failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = check_case_lines("sum.cpp", &stdout);
    assert!(n >= 9, "sum.cpp printed {n} case lines:\n{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("error ")).count(),
        4,
        "{stdout}"
    );
    assert!(stdout.contains("max_reproducible_count float 4294966784 double 9223372036854773760"));
}

#[test]
#[cfg_attr(miri, ignore = "runs a C compiler")]
fn c_tests() {
    let exe = compile("CC", "cc", "-std=c11", "ffi/tests/c/test_ffi.c", "test_ffi");
    let v = workspace().join("tests/vectors");
    let (out, stdout) = run(&exe, &[v.join("known_answers.txt"), v.join("core_vectors.txt")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "test_ffi failed:\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{stdout}");
    // The header's ADN_VERSION_* macros, compared with adn_version() by the program.
    assert!(
        stdout.contains(&format!("version {}\n", env!("CARGO_PKG_VERSION"))),
        "{stdout}"
    );
    let passed: u64 = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed > 5000, "{stdout}");
    // Every case of both files ran.
    for (file, text) in [
        ("known_answers.txt", KNOWN_ANSWERS),
        ("core_vectors.txt", reprosum_testkit::CORE_VECTORS),
    ] {
        let n = cases(text).count();
        assert!(
            stdout.contains(&format!("{file}: {n} cases")),
            "{file}: expected {n} cases:\n{stdout}"
        );
    }
}

/// The segmented, row, keyed and segmented cumulative sums from C (ffi/tests/c/test_batch.c
/// says what is checked).
#[test]
#[cfg_attr(miri, ignore = "runs a C compiler")]
fn c_batch_tests() {
    let exe = compile("CC", "cc", "-std=c11", "ffi/tests/c/test_batch.c", "test_batch");
    let (out, stdout) = run(&exe, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "test_batch failed:\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{stdout}");
    let passed: u64 = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed > 300, "{stdout}");
}

/// reprosum.hpp's batched sums (ffi/tests/c/test_batch.cpp says what is checked).
#[test]
#[cfg_attr(miri, ignore = "runs a C++ compiler")]
fn cpp_batch_tests() {
    let exe = compile(
        "CXX",
        "c++",
        "-std=c++17",
        "ffi/tests/c/test_batch.cpp",
        "test_batch_cpp",
    );
    let (out, stdout) = run(&exe, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "test_batch_cpp failed:\n{stdout}\n{stderr}");
    assert_eq!(stdout.trim_end(), "90 passed, 0 failed", "{stdout}");
}

/// Runs `test_threads` (built with OpenMP) with an environment and CPU affinity, expecting
/// the default thread count it implies.
fn threads_run(exe: &Path, env: Option<&str>, one_core: bool, expected: usize) {
    threads_run_with(exe, env, one_core, None, expected)
}

/// [`threads_run`] as rank of an MPI job with `local_ranks` ranks on this node (Open MPI's
/// variable).
fn threads_run_with(
    exe: &Path,
    env: Option<&str>,
    one_core: bool,
    local_ranks: Option<usize>,
    expected: usize,
) {
    let mut cmd = if one_core {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.arg(expected.to_string())
        .env_remove("ADN_NUM_THREADS")
        .env_remove("OMPI_COMM_WORLD_LOCAL_SIZE")
        .env_remove("MPI_LOCALNRANKS")
        .env_remove("PMIX_LOCAL_SIZE");
    if let Some(r) = local_ranks {
        cmd.env("OMPI_COMM_WORLD_LOCAL_SIZE", r.to_string());
    }
    if let Some(v) = env {
        cmd.env("ADN_NUM_THREADS", v);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run test_threads (taskset from util-linux is needed): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "test_threads (ADN_NUM_THREADS={env:?}, one core: {one_core}) failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches("threads OK").count(), 4, "{stdout}");
    println!("test_threads (ADN_NUM_THREADS={env:?}, one core: {one_core}):\n{stdout}");
}

/// The C library's threads: every thread count gives the same bits, the default follows
/// `ADN_NUM_THREADS` and the CPU affinity, and calls from an OpenMP parallel region share the
/// one pool (ffi/tests/c/test_threads.c says what is checked).
#[test]
#[cfg_attr(miri, ignore = "runs a C compiler")]
fn c_threads_and_openmp() {
    let exe = compile_with(
        "CC",
        "cc",
        "-std=c11",
        "ffi/tests/c/test_threads.c",
        "test_threads",
        &["-fopenmp"],
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    threads_run(&exe, None, false, cores);
    threads_run(&exe, Some("3"), false, 3);
    // Not a positive number: ignored.
    threads_run(&exe, Some("many"), false, cores);
    // One core in the affinity mask: one thread by default; the variable still wins.
    threads_run(&exe, None, true, 1);
    threads_run(&exe, Some("2"), true, 2);
    // MPI ranks free on every core share them; ranks bound to fewer cores keep theirs; the
    // variable still wins.
    threads_run_with(&exe, None, false, Some(2), (cores / 2).max(1));
    threads_run_with(&exe, None, false, Some(cores + 1), 1);
    threads_run_with(&exe, None, true, Some(2), 1);
    threads_run_with(&exe, Some("2"), false, Some(2), 2);
}

/// The shared library beside the static one has the SONAME `ffi/build.rs` gives it
/// (cargo-c's rule: `libreprosum.so.0.MINOR` while the major version is 0), read back with
/// `readelf -d` (binutils, beside the C compiler these tests need anyway).
#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(miri, ignore = "runs readelf")]
fn shared_library_has_its_soname() {
    let so = static_lib().with_file_name("libreprosum.so");
    assert!(so.is_file(), "{} was not built", so.display());
    let out = Command::new("readelf")
        .arg("-d")
        .arg(&so)
        .output()
        .expect("run readelf (binutils)");
    assert!(out.status.success(), "readelf -d {} failed", so.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let sonames: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("(SONAME)"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    let (major, minor, patch) = (
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    );
    let sover = match (major, minor) {
        ("0", "0") => format!("0.0.{patch}"),
        ("0", _) => format!("0.{minor}"),
        _ => major.to_string(),
    };
    assert_eq!(sonames, [format!("libreprosum.so.{sover}")], "{text}");
}
