//! The live input on its own: what it accepts in each state, and the writer's order and end.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::*;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(future)
}

#[test]
fn frames_are_accepted_while_open_and_refused_once_sealed_or_closed() {
    let input = LiveStdin::new(Some(b"ABORT\n".to_vec()));
    assert!(input.is_open() && input.can_abort());
    assert!(input.send(b"one\n".to_vec()));
    assert!(input.abort());
    assert!(!input.is_open());
    assert!(!input.send(b"two\n".to_vec()));
    // One abort only.
    assert!(!input.abort());
    input.close();
    input.close();
    assert!(!input.send(b"three\n".to_vec()));
    // The writer still gets what was queued before, in order, then the end.
    let mut written = Vec::new();
    assert!(block_on(write_live(&mut written, input)));
    assert_eq!(written, b"one\nABORT\n");
}

#[test]
fn without_an_abort_command_nothing_is_sealed() {
    let input = LiveStdin::new(None);
    assert!(!input.can_abort());
    assert!(!input.abort());
    assert!(input.is_open());
}

#[test]
fn the_writer_waits_for_frames_sent_from_another_thread_until_closed() {
    let input = LiveStdin::new(None);
    let sender = input.clone();
    assert_eq!(sender, input);
    assert_ne!(sender, LiveStdin::new(None));
    let thread = std::thread::spawn(move || {
        for n in 0..50 {
            assert!(sender.send(format!("{n}\n").into_bytes()));
            std::thread::yield_now();
        }
        sender.close();
    });
    let mut written = Vec::new();
    assert!(block_on(write_live(&mut written, input)));
    thread.join().expect("the sender");
    let expected: String = (0..50).map(|n| format!("{n}\n")).collect();
    assert_eq!(String::from_utf8(written).expect("utf-8"), expected);
}

/// A pipe whose reader is gone.
struct Broken;

impl tokio::io::AsyncWrite for Broken {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[test]
fn a_failed_write_closes_the_input_so_senders_learn_it() {
    let input = LiveStdin::new(None);
    assert!(input.send(b"lost\n".to_vec()));
    assert!(!block_on(write_live(Broken, input.clone())));
    assert!(!input.is_open());
    assert!(!input.send(b"more\n".to_vec()));
}

#[test]
fn one_input_feeds_one_run() {
    let input = LiveStdin::new(None);
    assert!(input.take());
    assert!(!input.clone().take());
}
