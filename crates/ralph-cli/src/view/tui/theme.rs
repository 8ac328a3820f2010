//! The TUI's styles. Without colours (`NO_COLOR`, `--color never`) only bold, italic,
//! dim and reverse remain, which NO_COLOR allows, so what is selected still shows.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Theme {
    pub(crate) color: bool,
}

impl Theme {
    fn paint(self, color: Color, modifiers: Modifier) -> Style {
        let style = Style::default().add_modifier(modifiers);
        if self.color { style.fg(color) } else { style }
    }

    pub(crate) fn title(self) -> Style {
        self.paint(Color::Magenta, Modifier::BOLD)
    }
    pub(crate) fn dim(self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }
    pub(crate) fn thinking(self) -> Style {
        Style::default().add_modifier(Modifier::DIM | Modifier::ITALIC)
    }
    pub(crate) fn tool(self) -> Style {
        self.paint(Color::Blue, Modifier::BOLD)
    }
    pub(crate) fn error(self) -> Style {
        self.paint(Color::Red, Modifier::BOLD)
    }
    pub(crate) fn success(self) -> Style {
        self.paint(Color::Green, Modifier::empty())
    }
    pub(crate) fn event(self) -> Style {
        self.paint(Color::Magenta, Modifier::empty())
    }
    pub(crate) fn notice(self) -> Style {
        self.paint(Color::Yellow, Modifier::empty())
    }
    /// A line that matches the search.
    pub(crate) fn found(self) -> Style {
        self.paint(Color::Yellow, Modifier::REVERSED)
    }
    /// The selected iteration, the selected tool call.
    pub(crate) fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
}
