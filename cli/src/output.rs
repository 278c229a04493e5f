//! Writing output: standard output for `-`, else a temporary file beside the target that is
//! renamed over it once complete.
//!
//! The target is the path after following symbolic links (so `-o link` replaces the
//! link's target and the link stays a link). A target that exists and is not a regular
//! file (`/dev/null`, a FIFO) is written directly. The temporary file is removed on any
//! error, and by a handler of SIGINT and SIGTERM (which then ends the process by the
//! signal, as it would have ended without the handler).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use reprosum_cli::escape;

use crate::CliError;

/// The temporary file in progress, for the signal handler. Held locked while the file is
/// created and while it is renamed, so the handler never removes a file it should not.
static TEMP: Mutex<Option<PathBuf>> = Mutex::new(None);

fn temp_slot() -> std::sync::MutexGuard<'static, Option<PathBuf>> {
    TEMP.lock().unwrap_or_else(|e| e.into_inner())
}

/// Signals are not watched here: an interrupt may leave the temporary file.
#[cfg(not(unix))]
fn watch_signals() -> Result<(), CliError> {
    Ok(())
}

/// Starts (once) the thread that removes the temporary file on SIGINT or SIGTERM.
#[cfg(unix)]
fn watch_signals() -> Result<(), CliError> {
    use std::sync::Once;
    static START: Once = Once::new();
    let mut result = Ok(());
    START.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            Ok(s) => s,
            Err(e) => {
                result = Err(CliError::data(format!("cannot watch for signals: {e}")));
                return;
            }
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Kept locked until the process ends: no rename can follow the removal.
                let mut slot = temp_slot();
                if let Some(tmp) = slot.take() {
                    let _ = std::fs::remove_file(tmp);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
    });
    result
}

/// Where output goes.
pub enum Sink {
    /// Standard output.
    Stdout(BufWriter<std::io::Stdout>),
    /// A file that is not a regular file (a device, a FIFO), written directly.
    Direct {
        /// The open file.
        w: BufWriter<File>,
        /// Its name for messages.
        name: String,
    },
    /// A temporary file, renamed over `target` by [`Sink::commit`].
    Temp {
        /// The open temporary file.
        w: BufWriter<File>,
        /// Its path.
        tmp: PathBuf,
        /// The resolved target.
        target: PathBuf,
        /// The name as given, for messages.
        name: String,
        /// Whether it was renamed (then nothing is removed on drop).
        done: bool,
    },
}

/// `path` with symbolic links followed (the last component too), up to 40 of them; the
/// result may not exist.
fn resolve(path: &Path, name: &str) -> Result<PathBuf, CliError> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)
                    .map_err(|e| CliError::data(format!("cannot write {name}: {e}")))?;
                p = match p.parent() {
                    Some(dir) if t.is_relative() => dir.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(CliError::data(format!(
        "cannot write {name}: too many levels of symbolic links"
    )))
}

impl Sink {
    /// Opens the output `path` (`-` for standard output).
    pub fn create(path: &Path) -> Result<Sink, CliError> {
        if path.as_os_str() == "-" {
            return Ok(Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout())));
        }
        let name = format!("'{}'", escape::path(path));
        let fail = |e: std::io::Error| CliError::data(format!("cannot write {name}: {e}"));
        let target = resolve(path, &name)?;
        let existing = std::fs::metadata(&target).ok();
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(CliError::data(format!("cannot write {name}: it is a directory")));
            }
            if !m.is_file() {
                let f = OpenOptions::new().write(true).open(&target).map_err(fail)?;
                return Ok(Sink::Direct {
                    w: BufWriter::with_capacity(1 << 16, f),
                    name,
                });
            }
        }
        let file_name = target
            .file_name()
            .ok_or_else(|| CliError::data(format!("cannot write {name}: not a file name")))?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        watch_signals()?;
        let mut attempt = 0u32;
        loop {
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(file_name);
            tmp_name.push(format!(".reprosum-tmp-{}-{attempt}", std::process::id()));
            let tmp = dir.join(tmp_name);
            let mut slot = temp_slot();
            *slot = Some(tmp.clone());
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(f) => {
                    drop(slot);
                    if let Some(m) = &existing {
                        // The new file keeps the old one's permission bits.
                        let _ = f.set_permissions(m.permissions());
                    }
                    return Ok(Sink::Temp {
                        w: BufWriter::with_capacity(1 << 16, f),
                        tmp,
                        target,
                        name,
                        done: false,
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists && attempt < 100 => {
                    *slot = None;
                    attempt += 1;
                }
                Err(e) => {
                    *slot = None;
                    return Err(fail(e));
                }
            }
        }
    }

    fn name(&self) -> &str {
        match self {
            Sink::Stdout(_) => "standard output",
            Sink::Direct { name, .. } | Sink::Temp { name, .. } => name,
        }
    }

    fn error(&self, e: std::io::Error) -> CliError {
        match (self, e.kind()) {
            // A closed pipe on standard output (`reprosum cumsum x -o - | head`) ends quietly.
            (Sink::Stdout(_), ErrorKind::BrokenPipe) => CliError::data(""),
            _ => CliError::data(format!("cannot write {}: {e}", self.name())),
        }
    }

    /// Writes `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        let r = match self {
            Sink::Stdout(w) => w.write_all(bytes),
            Sink::Direct { w, .. } | Sink::Temp { w, .. } => w.write_all(bytes),
        };
        r.map_err(|e| self.error(e))
    }

    /// Finishes the output: flushes it and, for a temporary file, syncs it and renames it
    /// over the target.
    pub fn commit(mut self) -> Result<(), CliError> {
        let r = match &mut self {
            Sink::Stdout(w) => w.flush(),
            Sink::Direct { w, .. } => w.flush(),
            Sink::Temp {
                w, tmp, target, done, ..
            } => w.flush().and_then(|()| w.get_ref().sync_all()).and_then(|()| {
                let mut slot = temp_slot();
                std::fs::rename(&*tmp, &*target)?;
                *slot = None;
                *done = true;
                Ok(())
            }),
        };
        r.map_err(|e| self.error(e))
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::Temp { tmp, done: false, .. } = self {
            // Only the temporary file this run created is removed.
            let mut slot = temp_slot();
            let _ = std::fs::remove_file(&*tmp);
            *slot = None;
        }
    }
}
