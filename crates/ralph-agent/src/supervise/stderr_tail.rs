//! A bounded tail of the child's stderr: a chatty agent cannot grow ralph's memory, and the
//! end of stderr (where the error usually is) is kept for the failure report.

/// How much of stderr is kept.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    buf: Vec<u8>,
    total: u64,
}

impl StderrTail {
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if bytes.len() >= STDERR_TAIL_BYTES {
            self.buf.clear();
            self.buf
                .extend_from_slice(&bytes[bytes.len() - STDERR_TAIL_BYTES..]);
            return;
        }
        self.buf.extend_from_slice(bytes);
        // Trim only when twice the cap, so trimming costs O(1) amortised per byte.
        if self.buf.len() >= 2 * STDERR_TAIL_BYTES {
            let excess = self.buf.len() - STDERR_TAIL_BYTES;
            self.buf.drain(..excess);
        }
    }

    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The last [`STDERR_TAIL_BYTES`] bytes as text, starting at a character boundary.
    pub(crate) fn to_text(&self) -> String {
        let start = self.buf.len().saturating_sub(STDERR_TAIL_BYTES);
        let mut tail = &self.buf[start..];
        if start > 0 {
            // Skip UTF-8 continuation bytes cut by the trim.
            while let Some((&b, rest)) = tail.split_first() {
                if b & 0xC0 != 0x80 {
                    break;
                }
                tail = rest;
            }
        }
        String::from_utf8_lossy(tail).into_owned()
    }
}

#[cfg(test)]
#[path = "stderr_tail_tests.rs"]
mod tests;
