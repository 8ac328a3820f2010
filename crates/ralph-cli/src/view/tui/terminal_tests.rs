//! Giving a closed terminal back prints nothing.

use std::cell::Cell;
use std::io;
use std::rc::Rc;

use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell as BufferCell;
use ratatui::layout::{Position, Size};

use super::give_back;

/// A terminal whose window can be closed: then every write fails as on a hung-up tty.
/// Says whether it was dropped (ratatui's drop, which prints, ran).
struct HungUp {
    hung: Rc<Cell<bool>>,
    dropped: Rc<Cell<bool>>,
}

impl HungUp {
    fn write(&self) -> io::Result<()> {
        if self.hung.get() { Err(gone()) } else { Ok(()) }
    }
}

impl Drop for HungUp {
    fn drop(&mut self) {
        self.dropped.set(true);
    }
}

fn gone() -> io::Error {
    io::Error::from_raw_os_error(5)
}

impl Backend for HungUp {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, _content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a BufferCell)>,
    {
        self.write()
    }
    fn hide_cursor(&mut self) -> io::Result<()> {
        self.write()
    }
    fn show_cursor(&mut self) -> io::Result<()> {
        self.write()
    }
    fn get_cursor_position(&mut self) -> io::Result<Position> {
        Err(gone())
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, _position: P) -> io::Result<()> {
        self.write()
    }
    fn clear(&mut self) -> io::Result<()> {
        self.write()
    }
    fn clear_region(&mut self, _clear_type: ClearType) -> io::Result<()> {
        self.write()
    }
    fn size(&self) -> io::Result<Size> {
        Ok(Size::new(80, 24))
    }
    fn window_size(&mut self) -> io::Result<WindowSize> {
        Err(gone())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.write()
    }
}

/// A terminal: the state of its window, and whether it was dropped.
fn drawn() -> (Terminal<HungUp>, Rc<Cell<bool>>, Rc<Cell<bool>>) {
    let hung = Rc::new(Cell::new(false));
    let dropped = Rc::new(Cell::new(false));
    let mut terminal = Terminal::new(HungUp {
        hung: Rc::clone(&hung),
        dropped: Rc::clone(&dropped),
    })
    .unwrap();
    // Drawn as the TUI draws: the cursor hidden.
    terminal.draw(|_| {}).unwrap();
    terminal.hide_cursor().unwrap();
    (terminal, hung, dropped)
}

/// ratatui's drop retries showing a hidden cursor and prints "Failed to show the cursor:
/// Input/output error" when it cannot: a hung-up terminal is not dropped but forgotten;
/// a live one is dropped as usual.
#[test]
fn a_hung_up_terminal_is_given_back_without_ratatuis_complaint() {
    let (terminal, hung, dropped) = drawn();
    hung.set(true);
    give_back(terminal);
    assert!(!dropped.get());

    let (terminal, _, dropped) = drawn();
    give_back(terminal);
    assert!(dropped.get());
}
