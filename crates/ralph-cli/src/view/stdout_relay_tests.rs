use std::sync::atomic::AtomicUsize;

use super::*;

/// A reader that takes nothing until it is let go, then everything.
#[derive(Clone, Default)]
struct PausedReader {
    go: Arc<(Mutex<bool>, Condvar)>,
    taken: Arc<Mutex<Vec<u8>>>,
}

impl PausedReader {
    fn let_go(&self) {
        *self.go.0.lock().unwrap() = true;
        self.go.1.notify_all();
    }

    fn taken(&self) -> Vec<u8> {
        self.taken.lock().unwrap().clone()
    }
}

impl Write for PausedReader {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut go = self.go.0.lock().unwrap();
        while !*go {
            go = self.go.1.wait(go).unwrap();
        }
        self.taken.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A reader that went away.
struct Closed;

impl Write for Closed {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::ErrorKind::BrokenPipe.into())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Fills the relay's queue for a reader that does not read.
fn filled(reader: &PausedReader) -> StdoutRelay {
    let relay = StdoutRelay::start(reader.clone());
    let none = || 0;
    // The first chunk is taken by the writing thread (held while it waits), then the
    // queue fills up to its limit.
    let chunk = vec![b'x'; QUEUE_BYTES / 4];
    for _ in 0..4 {
        relay.push(&chunk, LineEnd::Start, &none).unwrap();
    }
    relay
}

#[test]
fn a_full_queue_waits_for_the_reader_until_a_stop_signal_comes() {
    let reader = PausedReader::default();
    let relay = Arc::new(filled(&reader));
    let signals = Arc::new(AtomicUsize::new(0));
    let pushing = {
        let (relay, signals) = (Arc::clone(&relay), Arc::clone(&signals));
        std::thread::spawn(move || {
            relay.push(b"after the stop\n", LineEnd::Start, &|| {
                signals.load(Ordering::Relaxed)
            })
        })
    };
    std::thread::sleep(WAIT_POLL * 4);
    assert!(
        !pushing.is_finished(),
        "a full queue waits, as a full pipe did"
    );
    signals.store(1, Ordering::Relaxed);
    assert_eq!(pushing.join().unwrap().unwrap(), 15, "Ctrl-C gets through");
    // Nothing was dropped: the reader gets everything, in order, once it reads.
    reader.let_go();
    relay.finish(&|| 1, Duration::from_secs(60));
    let taken = reader.taken();
    assert_eq!(taken.len(), QUEUE_BYTES + 15);
    assert!(taken.ends_with(b"xafter the stop\n"));
}

#[test]
fn at_the_end_a_reader_that_takes_nothing_is_waited_for_only_until_a_stop() {
    let reader = PausedReader::default();
    let relay = filled(&reader);
    let started = Instant::now();
    // One stop signal: waited for while it makes progress, here not at all.
    relay.finish(&|| 1, WAIT_POLL * 2);
    assert!(started.elapsed() < Duration::from_secs(30));
    // What comes after is dropped, not waited for.
    assert_eq!(relay.push(b"late\n", LineEnd::Start, &|| 1).unwrap(), 5);
    let reader = PausedReader::default();
    // Two: at once, whatever the grace.
    filled(&reader).finish(&|| 2, Duration::from_secs(3600));
}

#[test]
fn without_a_stop_the_end_waits_for_a_slow_reader() {
    let reader = PausedReader::default();
    let relay = filled(&reader);
    let letting_go = {
        let reader = reader.clone();
        std::thread::spawn(move || {
            std::thread::sleep(WAIT_POLL * 4);
            reader.let_go();
        })
    };
    relay.finish(&|| 0, Duration::ZERO);
    assert_eq!(reader.taken().len(), QUEUE_BYTES);
    letting_go.join().unwrap();
}

#[test]
fn a_reader_that_went_away_is_said_on_the_next_write() {
    let relay = StdoutRelay::start(Closed);
    relay.push(b"first\n", LineEnd::Start, &|| 0).unwrap();
    relay.finish(&|| 0, Duration::ZERO);
    let next = relay.push(b"second\n", LineEnd::Start, &|| 0);
    assert_eq!(next.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(
        relay.failed().unwrap_err().kind(),
        io::ErrorKind::BrokenPipe
    );
}

#[test]
fn a_message_waits_briefly_for_what_was_written_before_it() {
    let reader = PausedReader::default();
    let relay = filled(&reader);
    // A reader that takes nothing is not waited for past the limit (no hang here).
    drop(relay.wait_written(WAIT_POLL));
    assert_eq!(reader.taken().len(), 0);
    reader.let_go();
    drop(relay.wait_written(Duration::from_secs(60)));
    assert_eq!(reader.taken().len(), QUEUE_BYTES);
}

#[test]
fn after_a_stop_the_queue_holds_a_bounded_amount_then_drops_the_rest_whole() {
    let reader = PausedReader::default();
    let relay = filled(&reader);
    let stopped = || 1;
    // An agent flooding its output while it is being stopped, to a reader that reads
    // nothing: every write returns at once, and the queue stops growing at its limit.
    let chunk = vec![b'y'; QUEUE_BYTES / 4];
    for _ in 0..64 {
        assert_eq!(
            relay.push(&chunk, LineEnd::Start, &stopped).unwrap(),
            chunk.len()
        );
    }
    let held = relay.shared.state().held;
    assert!(held <= AFTER_STOP_BYTES, "held {held} bytes");
    // Once something is dropped, so is everything after it, even what would fit: a
    // line is never spliced from the pieces around a gap.
    relay.push(b"late\n", LineEnd::Start, &stopped).unwrap();
    reader.let_go();
    relay.finish(&stopped, Duration::from_secs(60));
    let taken = reader.taken();
    assert_eq!(taken.len(), held);
    assert!(!taken.ends_with(b"late\n"));
    let dropped = relay.shared.state().dropped;
    assert_eq!(
        dropped as usize,
        64 * chunk.len() + 5 - (held - QUEUE_BYTES)
    );
}

/// A terminal both stdout (through the relay) and stderr write to, in the order the bytes
/// arrive; its stdout side can be held, as a busy machine holds the relay's thread.
#[derive(Clone, Default)]
struct SharedTerminal {
    bytes: Arc<Mutex<Vec<u8>>>,
    held: Arc<(Mutex<bool>, Condvar)>,
}

impl SharedTerminal {
    fn hold(&self, held: bool) {
        *self.held.0.lock().unwrap() = held;
        self.held.1.notify_all();
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }

    /// Where stderr writes.
    fn stderr(&self) -> impl Write {
        struct Stderr(Arc<Mutex<Vec<u8>>>);
        impl Write for Stderr {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        Stderr(Arc::clone(&self.bytes))
    }
}

impl Write for SharedTerminal {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut held = self.held.0.lock().unwrap();
        while *held {
            held = self.held.1.wait(held).unwrap();
        }
        self.bytes.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Ctrl-C's message is written by the signal thread while the loop's view goes on: the
/// view has already queued the lines that end the iteration (which leave the line
/// closed), but the relay has not written them yet. The message makes room for what is
/// on the screen, the open answer or the status line, not for what the view queued.
#[test]
fn a_message_beside_the_output_makes_room_for_the_line_on_the_screen_not_the_one_queued() {
    let status = format!("{}⠙ iteration 1 · 0:03 · running bash", status::ERASE);
    for (shown, end, room) in [
        ("I'll create the", LineEnd::Open, "\n"),
        (status.as_str(), LineEnd::Status, status::ERASE),
    ] {
        let terminal = SharedTerminal::default();
        let relay = StdoutRelay::start(terminal.clone());
        let none = || 0;
        relay.push(shown.as_bytes(), end, &none).unwrap();
        drop(relay.wait_written(Duration::from_secs(60)));
        terminal.hold(true);
        let queued = format!("{}\n■ iteration 1 interrupted\n", status::ERASE);
        relay
            .push(queued.as_bytes(), LineEnd::Start, &none)
            .unwrap();
        relay.beside(WAIT_POLL, |end| {
            let mut stderr = terminal.stderr();
            status::make_room(&mut stderr, end);
            stderr.write_all(b"ralph: stopping the agent\n").unwrap();
        });
        terminal.hold(false);
        drop(relay.wait_written(Duration::from_secs(60)));
        let text = terminal.text();
        assert!(
            text.starts_with(&format!("{shown}{room}ralph: stopping the agent\n")),
            "{text:?}"
        );
        assert!(text.ends_with(&queued), "{text:?}");
    }
}
