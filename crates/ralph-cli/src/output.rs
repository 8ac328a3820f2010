//! Stdout as JSON lines.

use std::io::BufWriter;
use std::io::StdoutLock;
use std::io::Write;

use serde::Serialize;

use crate::cli::TableArg;
use crate::error::CliError;

/// Buffered JSON-lines writer on stdout. Flushes on [`JsonLines::flush`] and when
/// dropped; a closed pipe surfaces as [`CliError::BrokenPipe`].
pub(crate) struct JsonLines {
    out: BufWriter<StdoutLock<'static>>,
}

impl JsonLines {
    pub(crate) fn stdout() -> Self {
        JsonLines {
            out: BufWriter::with_capacity(64 * 1024, std::io::stdout().lock()),
        }
    }

    pub(crate) fn write<T: Serialize>(&mut self, value: &T) -> Result<(), CliError> {
        serde_json::to_writer(&mut self.out, value).map_err(|e| CliError::write(e.into()))?;
        self.out.write_all(b"\n").map_err(CliError::write)
    }

    pub(crate) fn flush(&mut self) -> Result<(), CliError> {
        self.out.flush().map_err(CliError::write)
    }
}

/// Prints `rows` as `--format` asks: one JSON object a line, or the text `table`
/// renders (only called for the table form, so JSON output never pays for it).
pub(crate) fn print_rows<T: Serialize>(
    rows: &[T],
    format: TableArg,
    table: impl FnOnce(&[T]) -> String,
) -> Result<(), CliError> {
    match format {
        TableArg::Json => {
            let mut out = JsonLines::stdout();
            for row in rows {
                out.write(row)?;
            }
            out.flush()
        }
        TableArg::Table => std::io::stdout()
            .lock()
            .write_all(table(rows).as_bytes())
            .map_err(CliError::write),
    }
}
