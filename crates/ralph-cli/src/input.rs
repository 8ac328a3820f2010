//! Reading a captured stream from a file or stdin, chunk by chunk.

use std::fs::File;
use std::io;
use std::io::IsTerminal;
use std::io::Read;
use std::path::Path;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

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
        on_chunk: impl FnMut(&[u8]) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let read_error = |source| CliError::Read {
            path: PathBuf::from(self.name()),
            source,
        };
        match self {
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
                read_in_turn(io::stdin().lock(), on_chunk, read_error)
            }
            Input::File(path) => {
                let file = File::open(path).map_err(read_error)?;
                match file.metadata() {
                    Ok(meta) if meta.is_file() && is_zstd(&file) => {
                        let decoder = zstd::stream::read::Decoder::new(file).map_err(read_error)?;
                        read_in_turn(decoder, on_chunk, read_error)
                    }
                    Ok(meta) if meta.is_file() => read_alongside(file, on_chunk, read_error),
                    // A FIFO or a device: its writer already runs beside us.
                    _ => read_in_turn(file, on_chunk, read_error),
                }
            }
            Input::Compressed { file, .. } => {
                let decoder = zstd::stream::read::Decoder::new(file).map_err(read_error)?;
                read_in_turn(decoder, on_chunk, read_error)
            }
        }
    }
}

/// How a zstd frame starts (RFC 8878): no agent's stream, which is text, starts so.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether the regular file `file` is zstd-compressed (a transcript's `stdout.zst`
/// given by its path), read at its start without moving its offset.
fn is_zstd(file: &File) -> bool {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; ZSTD_MAGIC.len()];
    matches!(file.read_at(&mut head, 0), Ok(n) if n == head.len() && head == ZSTD_MAGIC)
}

/// Reads and parses in turn, on this thread: for a pipe, whose writer is a process of
/// its own, and for a kept stream, whose decompression is cheap next to its parsing (a
/// reading thread measured no faster there, and slower on a pipe with two cores busy).
fn read_in_turn(
    mut reader: impl Read,
    mut on_chunk: impl FnMut(&[u8]) -> Result<(), CliError>,
    read_error: impl Fn(io::Error) -> CliError,
) -> Result<(), CliError> {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match read_some(&mut reader, &mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => on_chunk(&buf[..n])?,
            Err(e) => return Err(read_error(e)),
        }
    }
}

/// One `read`, retried when a signal interrupted it.
fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            read => return read,
        }
    }
}

/// Reads a regular file on a second thread while `on_chunk` parses: copying it out of
/// the page cache costs about as much as parsing it, and the two then overlap instead of
/// adding up. At most [`CHUNKS_IN_FLIGHT`] chunks wait.
///
/// The reader is not joined: should `on_chunk` fail while it is blocked in a read (a
/// file on a stalled network mount), waiting for it would hang ralph. It ends at its
/// next chunk, which nobody receives, or with the process.
fn read_alongside(
    file: File,
    mut on_chunk: impl FnMut(&[u8]) -> Result<(), CliError>,
    read_error: impl Fn(io::Error) -> CliError,
) -> Result<(), CliError> {
    let (full, filled) = sync_channel::<io::Result<Chunk>>(CHUNKS_IN_FLIGHT);
    let (give_back, spent) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
    thread::Builder::new()
        .name("read-ahead".to_owned())
        .spawn(move || read_ahead(file, &full, &spent))
        .map_err(&read_error)?;
    for chunk in filled {
        let chunk = chunk.map_err(&read_error)?;
        on_chunk(&chunk.buf[..chunk.len])?;
        // The reader may have stopped after its last chunk: no buffer is wanted.
        let _ = give_back.try_send(chunk.buf);
    }
    Ok(())
}

/// Chunks read and not yet parsed, plus the one being parsed: enough that neither
/// thread waits on the other for long, few enough to stay in cache.
const CHUNKS_IN_FLIGHT: usize = 2;

/// A buffer and how much of it the read filled.
struct Chunk {
    buf: Vec<u8>,
    len: usize,
}

/// Reads `reader` to its end into buffers sent on `full`, reusing those given back on
/// `spent`; an error is sent and ends the reading. Stops early when `full` is closed.
fn read_ahead(mut reader: File, full: &SyncSender<io::Result<Chunk>>, spent: &Receiver<Vec<u8>>) {
    loop {
        let mut buf = spent.try_recv().unwrap_or_else(|_| vec![0u8; READ_CHUNK]);
        match read_some(&mut reader, &mut buf) {
            Ok(0) => return,
            Ok(len) => {
                if full.send(Ok(Chunk { buf, len })).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = full.send(Err(e));
                return;
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

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
