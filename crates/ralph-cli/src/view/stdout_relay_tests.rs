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
        relay.push(&chunk, &none).unwrap();
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
            relay.push(b"after the stop\n", &|| signals.load(Ordering::Relaxed))
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
    assert_eq!(relay.push(b"late\n", &|| 1).unwrap(), 5);
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
    relay.push(b"first\n", &|| 0).unwrap();
    relay.finish(&|| 0, Duration::ZERO);
    let next = relay.push(b"second\n", &|| 0);
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
    relay.wait_written(WAIT_POLL);
    assert_eq!(reader.taken().len(), 0);
    reader.let_go();
    relay.wait_written(Duration::from_secs(60));
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
        assert_eq!(relay.push(&chunk, &stopped).unwrap(), chunk.len());
    }
    let held = relay.shared.state().held;
    assert!(held <= AFTER_STOP_BYTES, "held {held} bytes");
    // Once something is dropped, so is everything after it, even what would fit: a
    // line is never spliced from the pieces around a gap.
    relay.push(b"late\n", &stopped).unwrap();
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
