//! Reading a captured stream from a file or stdin, chunk by chunk.

use std::fs::File;
use std::io;
use std::io::IsTerminal;
use std::io::Read;
use std::path::Path;
use std::path::PathBuf;

use crate::error::CliError;

/// Read size: large enough that syscalls cost nothing next to parsing, small enough to
/// stay in cache.
const READ_CHUNK: usize = 1 << 20;

/// A pipe's buffer is raised to this (Linux `F_SETPIPE_SZ`): the default 64 KiB caps
/// throughput below the parser's.
const PIPE_BUFFER: libc::c_int = 1 << 20;

/// Where a stream comes from.
pub(crate) enum Input {
    Stdin,
    File(PathBuf),
    /// A kept raw stream (`iterations/<n>/stdout.zst`), decompressed as it is read.
    Compressed {
        path: PathBuf,
        file: File,
    },
}

impl Input {
    pub(crate) fn from_arg(arg: Option<&Path>) -> Input {
        match arg {
            None => Input::Stdin,
            Some(p) if p == Path::new("-") => Input::Stdin,
            Some(p) => Input::File(p.to_owned()),
        }
    }

    /// A name for messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_owned(),
            Input::File(p) | Input::Compressed { path: p, .. } => p.display().to_string(),
        }
    }

    /// Calls `on_chunk` with the whole input, in order, in chunks; memory stays constant.
    pub(crate) fn for_each_chunk(
        &self,
        mut on_chunk: impl FnMut(&[u8]) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let read_error = |source| CliError::Read {
            path: PathBuf::from(self.name()),
            source,
        };
        let mut reader: Box<dyn Read> = match self {
            Input::Stdin => {
                // A person who typed `ralph inspect` alone would otherwise wait for
                // nothing: say what is being read, and how to end it.
                if io::stdin().is_terminal() {
                    crate::diagnostic::diagnostic(format_args!(
                        "reading an agent's stream from the terminal; end it with Ctrl-D \
                         (or give a file: `ralph inspect FILE`, `ralph inspect --help`)"
                    ));
                }
                raise_pipe_buffer(libc::STDIN_FILENO);
                Box::new(io::stdin().lock())
            }
            Input::File(path) => Box::new(File::open(path).map_err(read_error)?),
            Input::Compressed { file, .. } => {
                Box::new(zstd::stream::read::Decoder::new(file).map_err(read_error)?)
            }
        };
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => on_chunk(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(read_error(e)),
            }
        }
    }
}

/// Best effort: fails harmlessly on anything that is not a pipe.
fn raise_pipe_buffer(fd: libc::c_int) {
    // SAFETY: fcntl with F_SETPIPE_SZ takes an int and touches no memory of ours; on a
    // descriptor that is not a pipe it just fails.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BUFFER);
    }
}
