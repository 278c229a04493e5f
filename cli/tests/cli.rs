//! Runs the `reprosum` binary on files in a temporary directory and checks its output by bits
//! against the library (`reprosum::sum_fold`, `reprosum::cumsum_fold`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_reprosum");

// ---------------------------------------------------------------- helpers

/// A fresh, empty directory under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("reprosum-cli-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the reprosum binary");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn run(args: &[&str]) -> Output {
    run_with(args, None)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs successfully and returns stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "{args:?} wrote to stderr: {}", stderr(&o));
    stdout(&o)
}

/// Fails with a one-line `reprosum: ...` message and no panic; returns the message.
fn fails_with(o: &Output, what: &str) -> String {
    assert!(!o.status.success(), "{what}: expected failure, got success");
    assert!(o.status.code().is_some(), "{what}: killed by a signal");
    let err = stderr(o);
    assert!(err.starts_with("reprosum: "), "{what}: stderr {err:?}");
    assert!(
        err.ends_with('\n') && err.lines().count() == 1,
        "{what}: not one line: {err:?}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err:?}"
    );
    assert!(o.stdout.is_empty(), "{what}: wrote to stdout");
    err
}

fn fails(args: &[&str]) -> (i32, String) {
    let o = run(args);
    let err = fails_with(&o, &format!("{args:?}"));
    (o.status.code().unwrap(), err)
}

/// Deterministic values of mixed signs over a wide exponent range, with cancellation.
fn values_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|i| {
            let r = next();
            let m = 1.0 + (r >> 12) as f64 / (1u64 << 52) as f64;
            let e = ((r >> 2) % 80) as i32 - 40;
            let x = m * 2f64.powi(e);
            let x = if r & 1 == 0 { x } else { -x };
            if i % 7 == 3 {
                1e15 * x.signum()
            } else {
                x
            }
        })
        .collect()
}

fn values_f32(n: usize, seed: u64) -> Vec<f32> {
    values_f64(n, seed).iter().map(|&x| x as f32).collect()
}

fn raw_f64(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn raw_f32(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn text<T: std::fmt::Display>(xs: &[T]) -> Vec<u8> {
    xs.iter()
        .map(|x| format!("{x}\n"))
        .collect::<String>()
        .into_bytes()
}

/// A version-1.0 `.npy` file built by hand: `descr` such as `<f8`, `shape` such as `(3,)`.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Element bytes in the given order.
fn bytes_f64(xs: &[f64], big: bool) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| if big { x.to_be_bytes() } else { x.to_le_bytes() })
        .collect()
}

fn bytes_f32(xs: &[f32], big: bool) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| if big { x.to_be_bytes() } else { x.to_le_bytes() })
        .collect()
}

/// Splits an `.npy` file into its header text and data, checking the magic and length.
fn npy_parts(bytes: &[u8]) -> (String, &[u8]) {
    assert!(bytes.starts_with(b"\x93NUMPY"), "not npy");
    let (major, hlen, start) = (bytes[6], bytes[8] as usize | (bytes[9] as usize) << 8, 10);
    assert_eq!(major, 1, "npy version");
    let header = String::from_utf8(bytes[start..start + hlen].to_vec()).unwrap();
    (header, &bytes[start + hlen..])
}

fn hex64(x: f64) -> String {
    format!("0x{:016X}", x.to_bits())
}

fn hex32(x: f32) -> String {
    format!("0x{:08X}", x.to_bits())
}

fn expect_sum_f64(xs: &[f64], fold: usize) -> String {
    let s = reprosum::sum_fold(xs, fold).unwrap();
    format!("{s} {}\n", hex64(s))
}

fn expect_sum_f32(xs: &[f32], fold: usize) -> String {
    let s = reprosum::sum_fold(xs, fold).unwrap();
    format!("{s} {}\n", hex32(s))
}

fn readme_example() -> Vec<f64> {
    let mut xs = Vec::new();
    for _ in 0..5 {
        xs.extend_from_slice(&[1e16, -1e16]);
    }
    xs.extend_from_slice(&[1.0; 10_000]);
    xs
}

// ---------------------------------------------------------------- sum

#[test]
fn readme_example_in_every_format() {
    let d = TempDir::new("readme");
    let xs = readme_example();
    let want = "10000 0x40C3880000000000\n";
    let raw = d.file("x.raw", &raw_f64(&xs));
    let txt = d.file("x.txt", &text(&xs));
    let npy_le = d.file(
        "x.npy",
        &npy("<f8", &format!("({},)", xs.len()), &bytes_f64(&xs, false)),
    );
    assert_eq!(ok(&["sum", p(&raw), "--dtype", "f64"]), want);
    assert_eq!(ok(&["sum", p(&raw), "--dtype", "f64", "--format", "raw"]), want);
    assert_eq!(ok(&["sum", p(&txt), "--dtype", "f64", "--format", "text"]), want);
    assert_eq!(ok(&["sum", p(&npy_le)]), want);
    assert_eq!(
        ok(&["sum", p(&raw), "--dtype", "f64", "--bits"]),
        "0x40C3880000000000\n"
    );
    assert_eq!(expect_sum_f64(&xs, 3), want, "the library agrees");
}

#[test]
fn sum_raw_and_text_match_the_library_by_bits() {
    let d = TempDir::new("sum");
    let x64 = values_f64(5000, 1);
    let x32 = values_f32(5000, 2);
    let r64 = d.file("a.raw", &raw_f64(&x64));
    let r32 = d.file("b.raw", &raw_f32(&x32));
    let t64 = d.file("a.txt", &text(&x64));
    let t32 = d.file("b.txt", &text(&x32));
    for fold in [2usize, 3, 4, 21] {
        let k = fold.to_string();
        let want64 = expect_sum_f64(&x64, fold);
        let want32 = expect_sum_f32(&x32, fold);
        assert_eq!(ok(&["sum", p(&r64), "--dtype", "f64", "--fold", &k]), want64);
        assert_eq!(
            ok(&["sum", p(&t64), "--dtype", "f64", "--format", "text", "--fold", &k]),
            want64
        );
        assert_eq!(ok(&["sum", p(&r32), "--dtype", "f32", "--fold", &k]), want32);
        assert_eq!(
            ok(&["sum", p(&t32), "--dtype", "f32", "--format", "text", "--fold", &k]),
            want32
        );
    }
    let want = expect_sum_f64(&x64, 52);
    assert_eq!(ok(&["sum", p(&r64), "--dtype", "f64", "--fold", "52"]), want);
    // The default fold is 3.
    assert_eq!(ok(&["sum", p(&r64), "--dtype", "f64"]), expect_sum_f64(&x64, 3));
}

#[test]
fn sum_npy_both_byte_orders_and_types() {
    let d = TempDir::new("npy");
    let x64 = values_f64(3000, 3);
    let x32 = values_f32(3000, 4);
    let shape = format!("({},)", x64.len());
    for big in [false, true] {
        let e = if big { '>' } else { '<' };
        let f64_file = d.file(
            &format!("a{e}.npy"),
            &npy(&format!("{e}f8"), &shape, &bytes_f64(&x64, big)),
        );
        let f32_file = d.file(
            &format!("b{e}.npy"),
            &npy(&format!("{e}f4"), &shape, &bytes_f32(&x32, big)),
        );
        for fold in ["2", "3", "7"] {
            let k: usize = fold.parse().unwrap();
            let w64 = expect_sum_f64(&x64, k);
            let w32 = expect_sum_f32(&x32, k);
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold]), w64, "{e}f8");
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold, "--dtype", "f64"]), w64);
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold, "--format", "npy"]), w64);
            assert_eq!(ok(&["sum", p(&f32_file), "--fold", fold]), w32, "{e}f4");
            assert_eq!(ok(&["sum", p(&f32_file), "--fold", fold, "--dtype", "f32"]), w32);
        }
    }
    // An empty 1-D array sums to +0.
    let empty = d.file("e.npy", &npy("<f8", "(0,)", &[]));
    assert_eq!(ok(&["sum", p(&empty)]), "0 0x0000000000000000\n");
}

#[test]
fn bits_output_is_exactly_the_hex_pattern() {
    let d = TempDir::new("bits");
    let x64 = values_f64(1000, 5);
    let x32 = values_f32(1000, 6);
    let r64 = d.file("a.raw", &raw_f64(&x64));
    let r32 = d.file("b.raw", &raw_f32(&x32));
    for (file, dtype, len, want) in [
        (&r64, "f64", 18, hex64(reprosum::sum_fold(&x64, 3).unwrap())),
        (&r32, "f32", 10, hex32(reprosum::sum_fold(&x32, 3).unwrap())),
    ] {
        let out = ok(&["sum", p(file), "--dtype", dtype, "--bits"]);
        let line = out.strip_suffix('\n').expect("ends with a newline");
        assert!(!line.contains(char::is_whitespace), "{out:?}");
        assert!(line.starts_with("0x"), "{out:?}");
        assert_eq!(line.len(), len, "{out:?}");
        assert!(
            line[2..]
                .chars()
                .all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c)),
            "{out:?}"
        );
        assert_eq!(line, want);
    }
}

#[test]
fn text_special_values_and_f32_parsed_directly() {
    let d = TempDir::new("text");
    // Case-insensitive specials, surrounding spaces, CRLF and blank lines at the end.
    let t = d.file("s.txt", b"  1.5 \r\nNaN\n-INF\ninf\n\n  \n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f64", "--format", "text"]),
        "NaN 0x7FF8000000000000\n"
    );
    let t = d.file("i.txt", b"1\n-inf\n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f32", "--format", "text"]),
        "-inf 0xFF800000\n"
    );
    // 1 + 2^-24 (the midpoint of 1 and the next f32) plus a little: f32 parsing rounds up
    // to 1 + 2^-23; going through f64 would give the midpoint, then 1.0 (ties to even).
    let t = d.file("m.txt", b"1.000000059604644775390625000000001\n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f32", "--format", "text", "--bits"]),
        "0x3F800001\n"
    );
    let m = "1.000000059604644775390625000000001";
    assert_eq!(
        (m.parse::<f64>().unwrap() as f32).to_bits(),
        0x3F80_0000,
        "via f64"
    );
    assert_eq!(m.parse::<f32>().unwrap().to_bits(), 0x3F80_0001, "direct");
    // An empty text file sums to +0.
    let t = d.file("e.txt", b"");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f64", "--format", "text"]),
        "0 0x0000000000000000\n"
    );
}

#[test]
fn stdin_dash() {
    let xs = readme_example();
    let o = run_with(&["sum", "-", "--dtype", "f64"], Some(&raw_f64(&xs)));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "10000 0x40C3880000000000\n");
    let o = run_with(
        &["sum", "-", "--dtype", "f64", "--format", "text"],
        Some(&text(&xs)),
    );
    assert_eq!(stdout(&o), "10000 0x40C3880000000000\n");
    // npy is detected on standard input too.
    let x32 = values_f32(500, 7);
    let file = npy(">f4", "(500,)", &bytes_f32(&x32, true));
    let o = run_with(&["sum", "-"], Some(&file));
    assert_eq!(stdout(&o), expect_sum_f32(&x32, 3));
    // cumsum from stdin to stdout.
    let o = run_with(
        &["cumsum", "-", "--dtype", "f32", "-o", "-"],
        Some(&raw_f32(&x32)),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut want = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x32, &mut want, 3).unwrap();
    assert_eq!(o.stdout, raw_f32(&want));
}

// ---------------------------------------------------------------- cumsum

#[test]
fn cumsum_raw_and_text_match_the_library_by_bits() {
    let d = TempDir::new("cumsum");
    let x64 = values_f64(4000, 8);
    let x32 = values_f32(4000, 9);
    let mut c64 = vec![0f64; x64.len()];
    let mut c32 = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x64, &mut c64, 4).unwrap();
    reprosum::cumsum_fold(&x32, &mut c32, 4).unwrap();

    let i = d.file("a.raw", &raw_f64(&x64));
    let o = d.path("a.out");
    ok(&["cumsum", p(&i), "--dtype", "f64", "--fold", "4", "-o", p(&o)]);
    assert_eq!(std::fs::read(&o).unwrap(), raw_f64(&c64));

    let i = d.file("b.raw", &raw_f32(&x32));
    ok(&["cumsum", p(&i), "--dtype", "f32", "--fold", "4", "-o", p(&o)]);
    assert_eq!(std::fs::read(&o).unwrap(), raw_f32(&c32));

    for (name, input, dtype) in [("a.txt", text(&x64), "f64"), ("b.txt", text(&x32), "f32")] {
        let i = d.file(name, &input);
        let o = d.path("t.out");
        ok(&[
            "cumsum",
            p(&i),
            "--dtype",
            dtype,
            "--format",
            "text",
            "--fold",
            "4",
            "-o",
            p(&o),
        ]);
        let got = std::fs::read_to_string(&o).unwrap();
        assert_eq!(got.lines().count(), x64.len());
        if dtype == "f64" {
            let bits: Vec<u64> = got.lines().map(|l| l.parse::<f64>().unwrap().to_bits()).collect();
            assert_eq!(bits, c64.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        } else {
            let bits: Vec<u32> = got.lines().map(|l| l.parse::<f32>().unwrap().to_bits()).collect();
            assert_eq!(bits, c32.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        }
    }
    // Nothing but the inputs and outputs in the directory: no temporary files left.
    assert_eq!(d.names(), ["a.out", "a.raw", "a.txt", "b.raw", "b.txt", "t.out"]);
}

#[test]
fn cumsum_npy_keeps_dtype_and_byte_order() {
    let d = TempDir::new("cumnpy");
    let x64 = values_f64(2500, 10);
    let x32 = values_f32(2500, 11);
    let mut c64 = vec![0f64; x64.len()];
    let mut c32 = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x64, &mut c64, 3).unwrap();
    reprosum::cumsum_fold(&x32, &mut c32, 3).unwrap();
    let shape = "(2500,)";
    for big in [false, true] {
        let e = if big { '>' } else { '<' };
        for (descr, data, want) in [
            (format!("{e}f8"), bytes_f64(&x64, big), bytes_f64(&c64, big)),
            (format!("{e}f4"), bytes_f32(&x32, big), bytes_f32(&c32, big)),
        ] {
            let i = d.file("in.npy", &npy(&descr, shape, &data));
            let o = d.path("out.npy");
            ok(&["cumsum", p(&i), "-o", p(&o)]);
            let out = std::fs::read(&o).unwrap();
            let (header, body) = npy_parts(&out);
            assert!(header.contains(&format!("'descr': '{descr}'")), "{header}");
            assert!(
                header.contains("(2500,") && header.contains("fortran_order': False"),
                "{header}"
            );
            assert_eq!(body, &want[..], "{descr}");
        }
    }
}

#[test]
fn failed_cumsum_leaves_no_output() {
    let d = TempDir::new("fail");
    let bad = d.file("bad.txt", b"1\n2\nx\n");
    let out = d.path("out.txt");
    fails(&[
        "cumsum",
        p(&bad),
        "--dtype",
        "f64",
        "--format",
        "text",
        "-o",
        p(&out),
    ]);
    assert!(!out.exists());
    // An existing OUT is left as it was.
    std::fs::write(&out, b"keep\n").unwrap();
    let odd = d.file("odd.raw", &[0u8; 13]);
    fails(&["cumsum", p(&odd), "--dtype", "f64", "-o", p(&out)]);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep\n");
    // A directory that does not exist.
    let good = d.file("good.raw", &raw_f64(&[1.0, 2.0]));
    let nowhere = d.path("no/such/dir/out.raw");
    fails(&["cumsum", p(&good), "--dtype", "f64", "-o", p(&nowhere)]);
    assert_eq!(d.names(), ["bad.txt", "good.raw", "odd.raw", "out.txt"]);
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_input_is_one_line_and_non_zero() {
    let d = TempDir::new("errors");
    let odd = d.file("odd.raw", &[0u8; 12]);
    let raw = d.file("ok.raw", &raw_f64(&[1.0, 2.0]));
    let words = d.file("w.txt", b"1.0\n2.0\nthree\n");
    let gap = d.file("g.txt", b"1.0\n\n2.0\n");
    let f4 = d.file("f4.npy", &npy("<f4", "(2,)", &bytes_f32(&[1.0, 2.0], false)));
    let two_d = d.file(
        "2d.npy",
        &npy("<f8", "(2, 2)", &bytes_f64(&[1.0, 2.0, 3.0, 4.0], false)),
    );
    let scalar = d.file("0d.npy", &npy("<f8", "()", &bytes_f64(&[1.0], false)));
    let ints = d.file("i.npy", &npy("<i4", "(2,)", &[1, 0, 0, 0, 2, 0, 0, 0]));
    let short = d.file("s.npy", &npy("<f8", "(3,)", &bytes_f64(&[1.0, 2.0], false)));
    let junk = d.file("j.npy", b"\x93NUMPY garbage");
    let missing = d.path("missing.raw");

    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["sum", p(&missing), "--dtype", "f64"], 1, "missing.raw"),
        (vec!["sum", p(&odd), "--dtype", "f64"], 1, "12 bytes"),
        (
            vec!["sum", p(&words), "--dtype", "f64", "--format", "text"],
            1,
            "line 3",
        ),
        (
            vec!["sum", p(&words), "--dtype", "f32", "--format", "text"],
            1,
            "'three'",
        ),
        (
            vec!["sum", p(&gap), "--dtype", "f64", "--format", "text"],
            1,
            "line 2",
        ),
        (vec!["sum", p(&f4), "--dtype", "f64"], 1, "f32"),
        (vec!["sum", p(&two_d)], 1, "1-D"),
        (vec!["sum", p(&scalar)], 1, "1-D"),
        (vec!["sum", p(&ints)], 1, "dtype"),
        (vec!["sum", p(&short)], 1, "data bytes"),
        (vec!["sum", p(&junk)], 1, ".npy"),
        (
            vec!["sum", p(&raw), "--format", "npy", "--dtype", "f64"],
            1,
            ".npy",
        ),
        (vec!["sum", p(&raw)], 2, "--dtype"),
        (vec!["sum", p(&raw), "--format", "text"], 2, "--dtype"),
        (
            vec!["sum", p(&raw), "--dtype", "f64", "--fold", "53"],
            2,
            "2..=52",
        ),
        (vec!["sum", p(&raw), "--dtype", "f64", "--fold", "1"], 2, "2..=52"),
        (
            vec!["sum", p(&raw), "--dtype", "f32", "--fold", "22"],
            2,
            "2..=21",
        ),
        (vec!["sum", p(&f4), "--fold", "22"], 2, "2..=21"),
        (vec!["sum", p(&raw), "--dtype", "f64", "--fold", "x"], 2, "--fold"),
        (vec!["sum", p(&raw), "--dtype", "f16"], 2, "f16"),
        (vec!["sum"], 2, "FILE"),
        (vec!["cumsum", p(&raw), "--dtype", "f64"], 2, "--output"),
        (vec!["frobnicate"], 2, "frobnicate"),
        (vec!["demo", "--n", "0"], 2, "--n"),
    ];
    for (args, code, needle) in cases {
        let (got, err) = fails(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    }
}

#[test]
fn help_works() {
    let out = ok(&["--help"]);
    assert!(out.contains("cumsum") && out.contains("demo"));
    let out = ok(&["cumsum", "--help"]);
    assert!(out.contains("byte order"), "{out}");
}

// ---------------------------------------------------------------- demo

#[test]
fn demo_reprosum_bits_are_identical_in_every_row() {
    let out = ok(&["demo", "--n", "100000"]);
    let mut naive = Vec::new();
    let mut repro = Vec::new();
    for line in out.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() >= 5 && t[t.len() - 1].starts_with("0x") && t[t.len() - 3].starts_with("0x") {
            let (nv, nb, rv, rb) = (t[t.len() - 4], t[t.len() - 3], t[t.len() - 2], t[t.len() - 1]);
            assert_eq!(nb.len(), 18, "{line}");
            assert_eq!(rb.len(), 18, "{line}");
            // Each printed value is the value of its bit pattern.
            for (v, b) in [(nv, nb), (rv, rb)] {
                let bits = u64::from_str_radix(&b[2..], 16).unwrap();
                assert_eq!(v.parse::<f64>().unwrap().to_bits(), bits, "{line}");
            }
            naive.push(nb.to_string());
            repro.push(rb.to_string());
        }
    }
    assert!(repro.len() >= 9, "too few rows parsed:\n{out}");
    assert!(
        repro.iter().all(|b| *b == repro[0]),
        "reprosum bits differ:\n{out}"
    );
    naive.sort();
    naive.dedup();
    assert!(
        naive.len() > 1,
        "naive sums all agree, the demo shows nothing:\n{out}"
    );
    assert!(
        out.contains(&format!(
            "naive: {} distinct results in {} rows; reprosum: 1 distinct result.",
            naive.len(),
            repro.len()
        )),
        "{out}"
    );
    assert!(out.contains("f32"), "{out}");
}

/// `--device cpu` is the default; a GPU this machine or build lacks is a one-line error,
/// and a cumulative sum then leaves no output file.
#[test]
fn device_option() {
    let dir = TempDir::new("device");
    let data: Vec<f64> = (0..1000)
        .map(|i| (i as f64).sqrt() * if i % 2 == 0 { 1.0 } else { -1e3 })
        .collect();
    let input = dir.file(
        "x.f64",
        &data.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    let want = format!("0x{:016X}", reprosum::sum_fold(&data, 3).unwrap().to_bits());
    let cpu = ok(&["sum", p(&input), "--dtype", "f64", "--bits", "--device", "cpu"]);
    assert_eq!(cpu.trim(), want);
    for dev in ["cuda", "cuda:1", "hip"] {
        let o = run(&["sum", p(&input), "--dtype", "f64", "--bits", "--device", dev]);
        if o.status.success() {
            // A machine with that GPU: the same bits.
            assert_eq!(stdout(&o).trim(), want, "{dev}");
            continue;
        }
        fails_with(&o, dev);
        assert_eq!(o.status.code(), Some(1), "{dev}");
        let out = dir.0.join(format!("out-{dev}.f64"));
        let c = run(&[
            "cumsum",
            p(&input),
            "--dtype",
            "f64",
            "--device",
            dev,
            "-o",
            p(&out),
        ]);
        fails_with(&c, dev);
        assert!(!out.exists(), "{dev}: a failed cumsum left {out:?}");
    }
    let bad = run(&["sum", p(&input), "--dtype", "f64", "--device", "gpu"]);
    fails_with(&bad, "--device gpu");
    assert_eq!(bad.status.code(), Some(2));
}
