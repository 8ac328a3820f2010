//! The real terminal: raw mode and the alternate screen while the TUI runs, given back on
//! every way out (the guard's drop, a panic, through the panic hook), and the keys read
//! on a thread of their own so the loop never waits for the keyboard.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Once};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};

/// How often the key reader looks whether it should end.
const KEY_POLL: Duration = Duration::from_millis(50);

/// Whether the terminal is in the TUI's mode, for the panic hook.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// The terminal in the TUI's mode; dropping it gives the terminal back.
pub(crate) struct Screen {
    pub(crate) terminal: Terminal<CrosstermBackend<Stdout>>,
    keys: Receiver<Event>,
    reader_done: Arc<AtomicBool>,
}

impl Screen {
    pub(crate) fn enter() -> io::Result<Screen> {
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        if let Err(e) = execute!(io::stdout(), EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        let (sender, keys) = channel();
        let reader_done = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&reader_done);
        std::thread::Builder::new()
            .name("ralph-tui-keys".to_owned())
            .spawn(move || read_keys(&sender, &done))?;
        Ok(Screen {
            terminal,
            keys,
            reader_done,
        })
    }

    /// The next key or resize, if one came.
    pub(crate) fn next_event(&self) -> Option<Event> {
        self.keys.try_recv().ok()
    }

    /// Waits up to `timeout` for a key or resize.
    pub(crate) fn wait_event(&self, timeout: Duration) -> Option<Event> {
        self.keys.recv_timeout(timeout).ok()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.reader_done.store(true, Ordering::SeqCst);
        restore();
    }
}

fn read_keys(sender: &Sender<Event>, done: &AtomicBool) {
    while !done.load(Ordering::SeqCst) {
        match event::poll(KEY_POLL) {
            Ok(true) => match event::read() {
                Ok(event) => {
                    if sender.send(event).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
            Ok(false) => {}
            Err(_) => return,
        }
    }
}

/// Leaves the alternate screen and raw mode, once, whoever asks first.
pub(crate) fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
    }
}

/// Whether colours are wanted on this terminal: not when `NO_COLOR` is set (to anything
/// but the empty string), as no-color.org asks.
pub(crate) fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
