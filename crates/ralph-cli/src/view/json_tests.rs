use std::borrow::Cow;

use ralph_stream::AgentEvent;

use std::io;

use super::*;

/// A writer that accepts `room` bytes, then fails like a closed pipe.
struct ClosingPipe {
    written: Vec<u8>,
    room: usize,
}

impl Write for ClosingPipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written.len() + buf.len() > self.room {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        }
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn json_lines_stop_quietly_when_the_pipe_closes() {
    let delta = AgentEvent::TextDelta {
        text: Cow::Borrowed("hi"),
    };
    let event = RunEvent::Agent {
        iteration: 1,
        event: &delta,
    };
    let mut observer = JsonObserver::new(ClosingPipe {
        written: Vec::new(),
        room: 80,
    });
    for _ in 0..3 {
        observer.observe(&event);
    }
    assert!(observer.closed);
    assert_eq!(
        String::from_utf8(observer.out.written).unwrap(),
        "{\"type\":\"agent\",\"iteration\":1,\"event\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n"
    );
}
