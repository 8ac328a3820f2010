//! A child's stderr read as it comes, so that a test waits for what ralph says (the sign
//! that it reached a point: a lock wait told) instead of sleeping a time it hopes is long
//! enough. On a busy machine ralph may take seconds just to start; a fixed sleep then ends
//! before it got there, and a check of what it said by then fails for no fault of its own.

use std::io::Read;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::RUN_TIMEOUT;

/// How often the text read so far is looked at.
const POLL: Duration = Duration::from_millis(20);

pub struct StderrWatch {
    /// What was read so far, and whether the child closed its stderr.
    read: Arc<Mutex<(String, bool)>>,
    reader: JoinHandle<()>,
}

impl StderrWatch {
    /// Takes `child`'s stderr (which must be piped) and reads it on a thread of its own.
    pub fn take(child: &mut Child) -> StderrWatch {
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let read = Arc::new(Mutex::new((String::new(), false)));
        let reader = {
            let read = Arc::clone(&read);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                loop {
                    let n = pipe.read(&mut buf).unwrap_or(0);
                    let mut read = read.lock().unwrap();
                    if n == 0 {
                        read.1 = true;
                        return;
                    }
                    read.0.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            })
        };
        StderrWatch { read, reader }
    }

    /// Waits until stderr holds `what`; fails (showing what it holds) when the child
    /// closes stderr first, or after [`RUN_TIMEOUT`].
    pub fn wait_for(&self, what: &str) {
        let deadline = Instant::now() + RUN_TIMEOUT;
        loop {
            {
                let read = self.read.lock().unwrap();
                if read.0.contains(what) {
                    return;
                }
                assert!(!read.1, "stderr ended without {what:?}:\n{}", read.0);
                assert!(
                    Instant::now() < deadline,
                    "stderr never said {what:?}:\n{}",
                    read.0
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// All the child wrote on stderr, once it closed it (when it ended).
    pub fn all(self) -> String {
        self.reader.join().expect("the stderr reader");
        std::mem::take(&mut self.read.lock().unwrap().0)
    }
}
