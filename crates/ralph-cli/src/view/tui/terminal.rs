//! The real terminal: raw mode and the alternate screen while the TUI runs, given back on
//! every way out (the guard's drop, a panic, through the panic hook), and the keys read
//! on a thread of their own so the loop never waits for the keyboard. ralph's own
//! messages for stderr are held meanwhile (they would tear the screen), shown on the
//! status line, and written out once the terminal is given back.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::{Frame, Terminal};

/// How often the key reader looks whether it should end.
const KEY_POLL: Duration = Duration::from_millis(50);

/// Whether the terminal is in the TUI's mode, for the panic hook.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();
/// ralph's messages for stderr while the TUI has the screen (`None`: not held).
static HELD: Mutex<Option<Vec<String>>> = Mutex::new(None);
/// Messages held so far, for the status line to notice a new one.
static HELD_COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// The most messages held; older ones go first (they are repeated warnings by then).
const HELD_MAX: usize = 200;

/// Holds `message` (a line for stderr, `ralph: ` included) while the TUI has the screen;
/// false when it does not, and the message is to be written now.
pub(crate) fn hold(message: &str) -> bool {
    let Ok(mut held) = HELD.lock() else {
        return false;
    };
    let Some(messages) = held.as_mut() else {
        return false;
    };
    if messages.len() == HELD_MAX {
        messages.remove(0);
    }
    messages.push(message.to_owned());
    HELD_COUNT.fetch_add(1, Ordering::SeqCst);
    true
}

/// The newest held message, if one came since `seen` (updated).
pub(crate) fn newest_held(seen: &mut usize) -> Option<String> {
    let count = HELD_COUNT.load(Ordering::SeqCst);
    if count == *seen {
        return None;
    }
    *seen = count;
    HELD.lock().ok()?.as_ref()?.last().cloned()
}

/// The terminal in the TUI's mode; dropping it gives the terminal back.
pub(crate) struct Screen {
    /// Always there until the drop, which gives it back (see [`give_back`]).
    terminal: Option<Terminal<CrosstermBackend<Stdout>>>,
    keys: Receiver<Event>,
    reader_done: Arc<AtomicBool>,
}

impl Screen {
    /// Fails when stdout is not a terminal: a full-screen view in a pipe is noise.
    pub(crate) fn enter() -> io::Result<Screen> {
        if !io::IsTerminal::is_terminal(&io::stdout()) {
            return Err(io::Error::other("stdout is not a terminal"));
        }
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        if let Ok(mut held) = HELD.lock() {
            held.get_or_insert_with(Vec::new);
        }
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
            terminal: Some(terminal),
            keys,
            reader_done,
        })
    }

    /// Draws a frame; an error when the terminal is gone.
    pub(crate) fn draw(&mut self, render: impl FnOnce(&mut Frame<'_>)) -> io::Result<()> {
        match &mut self.terminal {
            Some(terminal) => terminal.draw(render).map(|_| ()),
            None => Err(io::Error::other("the terminal was given back")),
        }
    }

    /// The next key or resize, if one came.
    pub(crate) fn next_event(&self) -> Option<Event> {
        self.keys.try_recv().ok()
    }

    /// Gives the terminal back while `stopped` runs (Ctrl-Z: the shell's screen, the
    /// cursor, the line discipline), then takes it again and redraws it whole. The
    /// messages held stay held.
    pub(crate) fn suspended(&mut self, stopped: &mut dyn FnMut()) -> io::Result<()> {
        if !ACTIVE.swap(false, Ordering::SeqCst) {
            stopped();
            return Ok(());
        }
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
        stopped();
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)?;
        match &mut self.terminal {
            Some(terminal) => terminal.clear(),
            None => Ok(()),
        }
    }

    /// Waits up to `timeout` for a key or resize.
    pub(crate) fn wait_event(&self, timeout: Duration) -> Option<Event> {
        self.keys.recv_timeout(timeout).ok()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.reader_done.store(true, Ordering::SeqCst);
        if let Some(terminal) = self.terminal.take() {
            give_back(terminal);
        }
        restore();
    }
}

/// Shows the cursor and lets `terminal` go. When the cursor cannot be shown, the terminal
/// is gone (its window closed, SIGHUP): then it is forgotten rather than dropped, as
/// ratatui's drop would try again and print the error to stderr, where nobody reads it
/// about a terminal nobody sees. What it holds is a frame's buffers, freed at exit.
pub(crate) fn give_back<B: Backend>(mut terminal: Terminal<B>) {
    if terminal.show_cursor().is_err() {
        std::mem::forget(terminal);
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

/// Whether the full-screen view has the terminal now.
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// Leaves the alternate screen and raw mode, once, whoever asks first, and writes the
/// messages held meanwhile.
pub(crate) fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
        let _ = disable_raw_mode();
    }
    let held = HELD.lock().ok().and_then(|mut h| h.take());
    if let Some(messages) = held {
        use std::io::Write as _;
        let mut stderr = io::stderr().lock();
        for message in messages {
            let _ = writeln!(stderr, "{message}");
        }
    }
}

/// Whether colours are wanted on this terminal: not when `NO_COLOR` is set (to anything
/// but the empty string), as no-color.org asks.
pub(crate) fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[cfg(test)]
#[path = "terminal_tests.rs"]
mod tests;
