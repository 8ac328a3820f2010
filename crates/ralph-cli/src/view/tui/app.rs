//! The TUI's state beside the run model: which iteration is selected, scrolling,
//! following, search, the selected tool call, help and the quit question, and what each
//! key does to them.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::lines::Look;
use super::model::{Entry, RunModel};
use super::search::{Match, Matches};
use super::window::{self, Pos};

/// Lines one PageUp/PageDown moves when the window's height is not known yet.
const PAGE_FALLBACK: usize = 10;

/// What a key asks of whoever runs the TUI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    None,
    /// Leave the TUI (`ralph watch`), or, under `ralph run --tui`, stop the loop.
    Quit,
    /// Ctrl-C or Ctrl-\\: as the signals would.
    Interrupt,
    /// Write the selected iteration as Markdown.
    Export,
    /// Ctrl-Z: as the signal would (raw mode makes it a key).
    Suspend,
}

/// What is being typed at the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Prompt {
    None,
    Search(String),
    /// `q` under `ralph run --tui`: stop the loop? y/n.
    ConfirmQuit,
}

#[derive(Debug)]
pub(crate) struct App {
    /// Index into the model's iterations; `None` follows the newest.
    pub(crate) selected: Option<usize>,
    /// Stick to the newest iteration and its end.
    pub(crate) follow: bool,
    pub(crate) look: Look,
    /// The last search, kept for n/N after the prompt closed.
    pub(crate) last_search: String,
    pub(crate) prompt: Prompt,
    pub(crate) help: bool,
    /// A message for the status line (an export's path, "not found").
    pub(crate) message: Option<String>,
    /// That the loop is being stopped, kept on the status line until it ends.
    pub(crate) stopping: Option<String>,
    /// `q` asks first (under `ralph run --tui`).
    pub(crate) confirm_quit: bool,
    /// The transcript window's size at the last draw.
    pub(crate) transcript_size: (u16, u16),
    /// Screen lines the last frame laid out for the transcript (see [`window::Window`]).
    pub(crate) laid_out: usize,
    /// The search match shown, for n/N.
    matched: Option<Match>,
}

impl App {
    pub(crate) fn new(confirm_quit: bool) -> App {
        App {
            selected: None,
            follow: true,
            look: Look::default(),
            last_search: String::new(),
            prompt: Prompt::None,
            help: false,
            message: None,
            stopping: None,
            confirm_quit,
            transcript_size: (0, 0),
            laid_out: 0,
            matched: None,
        }
    }

    /// Brings what the view asks in line with the run before a frame: once the loop has
    /// ended, whether to stop it is no question any more, and the end is shown instead.
    pub(crate) fn settle(&mut self, model: &RunModel) {
        if self.prompt == Prompt::ConfirmQuit && model.finished.is_some() {
            self.prompt = Prompt::None;
        }
    }

    /// The iteration shown.
    pub(crate) fn shown(&self, model: &RunModel) -> Option<usize> {
        let newest = model.iterations.len().checked_sub(1)?;
        Some(match (self.follow, self.selected) {
            (false, Some(i)) => i.min(newest),
            _ => newest,
        })
    }

    fn select(&mut self, model: &RunModel, index: usize) {
        self.follow = false;
        self.selected = Some(index);
        self.look.top = None;
        self.look.tool = None;
        if model.iterations.len().checked_sub(1) == Some(index) && model.running() {
            self.message = Some("newest iteration (f follows it live)".to_owned());
        }
    }

    pub(crate) fn key(&mut self, key: KeyEvent, model: &mut RunModel) -> Request {
        if key.kind == KeyEventKind::Release {
            return Request::None;
        }
        if is_interrupt(key) {
            return Request::Interrupt;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z') {
            return Request::Suspend;
        }
        match &mut self.prompt {
            Prompt::Search(text) => {
                match key.code {
                    KeyCode::Enter => {
                        self.last_search = text.to_lowercase();
                        self.look.search = self.last_search.clone();
                        self.prompt = Prompt::None;
                        self.find(model, true, true);
                    }
                    KeyCode::Esc => self.prompt = Prompt::None,
                    KeyCode::Backspace => {
                        text.pop();
                    }
                    KeyCode::Char(c) => text.push(c),
                    _ => {}
                }
                return Request::None;
            }
            Prompt::ConfirmQuit => {
                self.prompt = Prompt::None;
                return if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                    Request::Quit
                } else if model.finished.is_some() {
                    // Answered after the loop ended (before a frame dropped the
                    // question): it does not go on, and its end is what is shown.
                    Request::None
                } else {
                    self.message = Some("the loop goes on".to_owned());
                    Request::None
                };
            }
            Prompt::None => {}
        }
        if self.help {
            self.help = false;
            return Request::None;
        }
        self.message = None;
        let shown = self.shown(model);
        let last = model.iterations.len().saturating_sub(1);
        let page = match self.transcript_size.1 {
            0 => PAGE_FALLBACK,
            height => usize::from(height).saturating_sub(1).max(1),
        };
        match key.code {
            KeyCode::Char('q') => {
                if self.confirm_quit && model.finished.is_none() {
                    self.prompt = Prompt::ConfirmQuit;
                } else {
                    return Request::Quit;
                }
            }
            KeyCode::Esc => {
                self.look.search.clear();
            }
            KeyCode::Up | KeyCode::Char('h') => {
                if let Some(i) = shown {
                    self.select(model, i.saturating_sub(1));
                }
            }
            KeyCode::Down | KeyCode::Char('l') => {
                if let Some(i) = shown {
                    self.select(model, (i + 1).min(last));
                }
            }
            KeyCode::Char('k') => self.scroll_up(model, 1),
            KeyCode::Char('j') => self.scroll_down(model, 1),
            KeyCode::PageUp | KeyCode::Char('b') => self.scroll_up(model, page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_down(model, page),
            KeyCode::Home | KeyCode::Char('g') => {
                self.follow = false;
                self.selected = shown;
                self.look.top = Some(Pos::default());
            }
            KeyCode::End | KeyCode::Char('G') => self.look.top = None,
            KeyCode::Char('f') => {
                self.follow = !self.follow;
                if self.follow {
                    self.selected = None;
                    self.look.top = None;
                } else {
                    self.selected = shown;
                }
                self.message = Some(
                    if self.follow {
                        "following live"
                    } else {
                        "follow off"
                    }
                    .to_owned(),
                );
            }
            KeyCode::Char('/') => self.prompt = Prompt::Search(String::new()),
            KeyCode::Char('n') => self.find(model, true, false),
            KeyCode::Char('N') => self.find(model, false, false),
            KeyCode::Tab => self.next_tool(model, false),
            KeyCode::BackTab => self.next_tool(model, true),
            KeyCode::Enter | KeyCode::Char('o') => self.toggle_tool(model),
            KeyCode::Char('e') => return Request::Export,
            KeyCode::Char('?') => self.help = true,
            _ => {}
        }
        Request::None
    }

    /// The window's size for moving it: as last drawn, or a guess before the first draw.
    fn size(&self) -> (u16, u16) {
        match self.transcript_size {
            (width, 0) => (width, PAGE_FALLBACK as u16),
            size => size,
        }
    }

    fn scroll_up(&mut self, model: &RunModel, lines: usize) {
        let Some(shown) = self.shown(model) else {
            return;
        };
        let it = &model.iterations[shown];
        let top = window::up(it, &self.look, self.look.top, lines, self.size());
        self.follow = false;
        self.selected = Some(shown);
        self.look.top = Some(top);
    }

    fn scroll_down(&mut self, model: &RunModel, lines: usize) {
        let Some(shown) = self.shown(model) else {
            return;
        };
        let it = &model.iterations[shown];
        self.look.top = window::down(it, &self.look, self.look.top, lines, self.size().0);
    }

    /// Selects the tool call before (`back`) or after the selected one, newest first when
    /// none is selected, and scrolls it into view.
    fn next_tool(&mut self, model: &RunModel, back: bool) {
        let Some(shown) = self.shown(model) else {
            return;
        };
        let it = &model.iterations[shown];
        let tools: Vec<usize> = it
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Entry::Tool(_)))
            .map(|(i, _)| i)
            .collect();
        let Some(&newest) = tools.last() else {
            self.message = Some("no tool calls in this iteration".to_owned());
            return;
        };
        let next = match self.look.tool {
            None => newest,
            Some(current) if back => tools
                .iter()
                .rev()
                .copied()
                .find(|&i| i < current)
                .unwrap_or(newest),
            Some(current) => tools
                .iter()
                .copied()
                .find(|&i| i > current)
                .unwrap_or(tools[0]),
        };
        self.look.tool = Some(next);
        self.reveal(shown, next, 0);
    }

    fn toggle_tool(&mut self, model: &mut RunModel) {
        let Some(shown) = self.shown(model) else {
            return;
        };
        let Some(index) = self.look.tool else {
            self.message = Some("Tab selects a tool call first".to_owned());
            return;
        };
        if let Some(Entry::Tool(call)) = model.iterations[shown].entries.get_mut(index) {
            call.expanded = !call.expanded;
        }
        self.reveal(shown, index, 0);
    }

    /// Puts line `line` of entry `index` at the window's top (or as near as it goes).
    fn reveal(&mut self, shown: usize, index: usize, line: usize) {
        self.look.top = Some(Pos {
            entry: index,
            line,
            row: 0,
        });
        self.follow = false;
        self.selected = Some(shown);
    }

    /// Finds the next (or previous) line matching the search, from the selected
    /// iteration on, and shows it; a match in a folded tool call's output unfolds it.
    fn find(&mut self, model: &mut RunModel, forward: bool, from_start: bool) {
        if self.last_search.is_empty() {
            self.message = Some("/ to search".to_owned());
            return;
        }
        self.look.search = self.last_search.clone();
        let Some(shown) = self.shown(model) else {
            return;
        };
        let current = if from_start { None } else { self.matched };
        let from = current.unwrap_or(if forward {
            Match::start_of(shown)
        } else {
            Match::end_of(shown)
        });
        let found = Matches::find(model, &self.last_search, from, current.is_some());
        let Some((at, n)) = found.pick(forward) else {
            self.message = Some(format!("not found: {}", self.last_search));
            return;
        };
        self.matched = Some(at);
        if let Some(Entry::Tool(call)) = model.iterations[at.iteration].entries.get_mut(at.entry)
            && at.line > 0
        {
            call.expanded = true;
        }
        self.reveal(at.iteration, at.entry, at.line);
        self.message = Some(format!(
            "match {n}/{} in iteration {}",
            found.count, model.iterations[at.iteration].number
        ));
    }
}

/// Ctrl-C, and Ctrl-\\: in raw mode the terminal sends their bytes as keys instead of
/// SIGINT and SIGQUIT, and outside the full-screen view ralph takes SIGQUIT as it takes
/// SIGINT (stop the loop, keep the summary), so the view does the same. A terminal
/// without the newer keyboard protocol reports Ctrl-\\ (byte 0x1C) as Ctrl-4.
fn is_interrupt(key: KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char('c' | '\\' | '4'))
}
