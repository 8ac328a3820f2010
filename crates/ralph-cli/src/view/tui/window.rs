//! The window on an iteration's transcript: where it starts ([`Pos`]), the lines it shows,
//! and moving it. A position names a line of the transcript, not a distance from its end,
//! so the lines on screen stay where they are while the agent writes below them; and
//! every frame and every move lays out only the rows it shows or passes (plus the one
//! line it starts in the middle of), wherever in a long iteration the window is.

use ratatui::text::Line;

use super::lines::{Look, Source};
use super::model::Iteration;
use super::theme::Theme;

/// A row of the transcript: entry `entry`'s source line `line` (see [`Source`]), its
/// `row`th screen line as wrapped. Stays valid while the iteration grows; a position
/// that names nothing any more (a resize, an entry that changed) is read as the nearest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Pos {
    pub(crate) entry: usize,
    pub(crate) line: usize,
    pub(crate) row: usize,
}

/// The rows to draw.
pub(crate) struct Window {
    pub(crate) lines: Vec<Line<'static>>,
    /// Where they start: the position that keeps them in place.
    pub(crate) top: Pos,
    /// Screen lines built for it (the rows shown and those of the lines they start or
    /// end in), for the tests that hold a frame's work to the screen's size.
    pub(crate) laid_out: usize,
}

/// The `height` rows from `look.top`, or the last `height` rows when it is `None` or
/// too near the end to fill the window.
pub(crate) fn window(it: &Iteration, look: &Look, width: u16, height: u16, theme: Theme) -> Window {
    let width = usize::from(width.max(1));
    let height = usize::from(height);
    let mut walk = Walk::new(it, look, theme);
    let mut laid_out = 0;
    let mut shown = None;
    if let Some(top) = look.top.and_then(|top| walk.clamp(top)) {
        let mut lines = Vec::with_capacity(height);
        let (top, work) = walk.down_from(top, width, height, &mut lines);
        laid_out += work;
        if lines.len() >= height {
            shown = Some((lines, top));
        }
    }
    let (mut lines, top) = match shown {
        Some(shown) => shown,
        None => {
            let (lines, top, work) = walk.end(width, height);
            laid_out += work;
            (lines, top)
        }
    };
    if !look.search.is_empty() {
        for line in &mut lines {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            if text.to_lowercase().contains(&look.search) {
                *line = std::mem::take(line).patch_style(theme.found());
            }
        }
    }
    Window {
        lines,
        top,
        laid_out,
    }
}

/// The position `n` rows above `from` (`None`: the top of the end's window), or the
/// transcript's first row.
pub(crate) fn up(
    it: &Iteration,
    look: &Look,
    from: Option<Pos>,
    n: usize,
    size: (u16, u16),
) -> Pos {
    let width = usize::from(size.0.max(1));
    let mut walk = Walk::new(it, look, Theme { color: false });
    let from = match from.and_then(|pos| walk.clamp(pos)) {
        Some(pos) => pos,
        None => walk.end(width, usize::from(size.1)).1,
    };
    let mut pos = Pos {
        row: from
            .row
            .min(walk.row_count(from.entry, from.line, width) - 1),
        ..from
    };
    let mut left = n;
    loop {
        if left <= pos.row {
            pos.row -= left;
            return pos;
        }
        left -= pos.row + 1;
        match walk.prev(pos.entry, pos.line) {
            Some((entry, line)) => {
                let rows = walk.row_count(entry, line, width);
                pos = Pos {
                    entry,
                    line,
                    row: rows - 1,
                };
            }
            None => return Pos { row: 0, ..pos },
        }
    }
}

/// The position `n` rows below `from`, or the transcript's last row; `None` (the end)
/// stays at the end.
pub(crate) fn down(
    it: &Iteration,
    look: &Look,
    from: Option<Pos>,
    n: usize,
    width: u16,
) -> Option<Pos> {
    let width = usize::from(width.max(1));
    let mut walk = Walk::new(it, look, Theme { color: false });
    let mut pos = walk.clamp(from?)?;
    let mut left = n;
    loop {
        let rows = walk.row_count(pos.entry, pos.line, width);
        if pos.row + left < rows {
            pos.row += left;
            return Some(pos);
        }
        left -= rows.saturating_sub(pos.row);
        match walk.next(pos.entry, pos.line) {
            Some((entry, line)) => {
                pos = Pos {
                    entry,
                    line,
                    row: 0,
                }
            }
            None => {
                return Some(Pos {
                    row: rows - 1,
                    ..pos
                });
            }
        }
    }
}

/// Walks an iteration's source lines, building one entry's at a time.
struct Walk<'a> {
    it: &'a Iteration,
    look: &'a Look,
    theme: Theme,
    /// The entry `source` is of.
    entry: usize,
    source: Option<Source<'a>>,
    scratch: Vec<Line<'static>>,
}

impl<'a> Walk<'a> {
    fn new(it: &'a Iteration, look: &'a Look, theme: Theme) -> Walk<'a> {
        Walk {
            it,
            look,
            theme,
            entry: 0,
            source: None,
            scratch: Vec::new(),
        }
    }

    fn source(&mut self, entry: usize) -> &Source<'a> {
        if self.entry != entry {
            self.source = None;
            self.entry = entry;
        }
        let (it, look, theme) = (self.it, self.look, self.theme);
        self.source
            .get_or_insert_with(|| Source::of(&it.entries[entry], entry, look, false, theme))
    }

    /// The first line of the entries from `entry` on.
    fn first_from(&mut self, entry: usize) -> Option<(usize, usize)> {
        (entry..self.it.entries.len()).find_map(|e| self.source(e).first().map(|l| (e, l)))
    }

    /// The last line of the entries before `end`.
    fn last_before(&mut self, end: usize) -> Option<(usize, usize)> {
        (0..end)
            .rev()
            .find_map(|e| self.source(e).last().map(|l| (e, l)))
    }

    fn next(&mut self, entry: usize, line: usize) -> Option<(usize, usize)> {
        match self.source(entry).next(line) {
            Some(line) => Some((entry, line)),
            None => self.first_from(entry + 1),
        }
    }

    fn prev(&mut self, entry: usize, line: usize) -> Option<(usize, usize)> {
        match self.source(entry).prev(line) {
            Some(line) => Some((entry, line)),
            None => self.last_before(entry),
        }
    }

    /// `pos` as the transcript is now: the line it names or the nearest.
    fn clamp(&mut self, pos: Pos) -> Option<Pos> {
        let count = self.it.entries.len();
        let (entry, line) = if pos.entry < count {
            (pos.entry, pos.line)
        } else {
            (count.checked_sub(1)?, usize::MAX)
        };
        if let Some(found) = self.source(entry).line_at(line) {
            let row = if found == line { pos.row } else { 0 };
            return Some(Pos {
                entry,
                line: found,
                row,
            });
        }
        // An entry without lines: the next line, else the last.
        let (entry, line) = self.first_from(entry).or_else(|| self.last_before(count))?;
        Some(Pos {
            entry,
            line,
            row: 0,
        })
    }

    /// Lays `line` out into `out`; how many rows it took (one at least).
    fn rows(
        &mut self,
        entry: usize,
        line: usize,
        width: usize,
        out: &mut Vec<Line<'static>>,
    ) -> usize {
        self.source(entry);
        match &self.source {
            Some(source) => source.rows(line, width, out),
            None => 0,
        }
        .max(1)
    }

    fn row_count(&mut self, entry: usize, line: usize, width: usize) -> usize {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let rows = self.rows(entry, line, width, &mut scratch);
        self.scratch = scratch;
        rows
    }

    /// Fills `out` with up to `height` rows from `top`; returns the position they start
    /// at (its row cut to the line's) and the rows laid out.
    fn down_from(
        &mut self,
        top: Pos,
        width: usize,
        height: usize,
        out: &mut Vec<Line<'static>>,
    ) -> (Pos, usize) {
        let mut start = top;
        let mut laid_out = 0;
        let mut at = Some((top.entry, top.line));
        let mut rows = Vec::new();
        let mut first = true;
        while let Some((entry, line)) = at
            && out.len() < height
        {
            rows.clear();
            let count = self.rows(entry, line, width, &mut rows);
            laid_out += count;
            let skip = if first {
                start.row = start.row.min(count - 1);
                start.row
            } else {
                0
            };
            first = false;
            let room = height - out.len();
            out.extend(rows.drain(..).skip(skip).take(room));
            at = self.next(entry, line);
        }
        (start, laid_out)
    }

    /// The last `height` rows, where they start, and the rows laid out.
    fn end(&mut self, width: usize, height: usize) -> (Vec<Line<'static>>, Pos, usize) {
        let mut chunks: Vec<(usize, usize, Vec<Line<'static>>)> = Vec::new();
        let mut count = 0;
        let mut at = self.last_before(self.it.entries.len());
        while let Some((entry, line)) = at {
            let mut rows = Vec::new();
            count += self.rows(entry, line, width, &mut rows);
            chunks.push((entry, line, rows));
            if count >= height {
                break;
            }
            at = self.prev(entry, line);
        }
        let over = count.saturating_sub(height);
        let top = chunks
            .last()
            .map_or(Pos::default(), |&(entry, line, _)| Pos {
                entry,
                line,
                row: over,
            });
        let lines = chunks
            .into_iter()
            .rev()
            .flat_map(|(_, _, rows)| rows)
            .skip(over)
            .collect();
        (lines, top, count)
    }
}
