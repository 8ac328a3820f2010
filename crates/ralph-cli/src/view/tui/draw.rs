//! One frame: the header (run, hat, backend, model, iteration x/limit, elapsed against
//! the runtime limit, cost against the budget, tokens), the iteration list, the selected
//! iteration's transcript, and the status line; help over it on `?`. Every size down to
//! one cell draws without panicking: parts that do not fit are left out.

use std::time::Duration;

use ralph_core::machine::format_usd_limit;
use ralph_core::run_event::format_usd;
use ralph_core::token_count::TokenCount;
use ralph_stream::CostKind;
use ratatui::Frame;
use ratatui::buffer::CellWidth;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};
use unicode_segmentation::UnicodeSegmentation;

use super::app::{App, Prompt};
use super::glyphs;
use super::mirror::Outcome;
use super::model::{Iteration, RunModel};
use super::theme::Theme;
use super::window;
use crate::view::term::ending::Ending;
use crate::view::term::figures::{attempt_part, clock, duration_ms};
use crate::view::term::limit_lines;

/// Below this width the iteration list is left out: the transcript needs the room.
const LIST_MIN_TOTAL_WIDTH: u16 = 60;
/// The iteration list's width when shown.
const LIST_WIDTH: u16 = 30;
/// Silence after which a streaming agent is no longer said to be writing.
const QUIET_AFTER_MS: u64 = 5_000;
/// Header lines.
const HEADER_HEIGHT: u16 = 2;

/// The keys, for `?`.
pub(crate) const HELP: &[(&str, &str)] = &[
    ("↑/↓ h/l", "previous / next iteration"),
    ("j/k", "scroll a line"),
    ("PgUp/PgDn b/space", "scroll a page"),
    ("g/G Home/End", "top / end of the transcript"),
    ("f", "follow live on/off"),
    ("/ n N", "search, next, previous match"),
    ("Tab/S-Tab", "select a tool call"),
    ("Enter o", "expand / collapse it"),
    ("e", "export the iteration as Markdown"),
    ("Esc", "clear the search"),
    ("?", "this help"),
    ("q", "quit (ralph run --tui asks, then stops the loop)"),
    ("Ctrl-C Ctrl-\\", "stop the loop (ralph run --tui) or leave"),
    ("Ctrl-Z", "suspend as a shell would; fg resumes"),
];

/// The keys' column in the help.
const HELP_KEYS_WIDTH: usize = 18;

/// `now_ms`: the wall clock in Unix milliseconds, for the running iteration's time.
pub(crate) fn frame(
    frame: &mut Frame<'_>,
    model: &RunModel,
    app: &mut App,
    theme: Theme,
    now_ms: u64,
) {
    app.settle(model);
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let [header, body, status] = Layout::vertical([
        Constraint::Length(HEADER_HEIGHT.min(area.height.saturating_sub(1))),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(header_lines(model, theme, now_ms)), header);
    let shown = app.shown(model);
    let transcript = if area.width >= LIST_MIN_TOTAL_WIDTH {
        let [list, rest] =
            Layout::horizontal([Constraint::Length(LIST_WIDTH), Constraint::Min(0)]).areas(body);
        iteration_list(frame, model, shown, list, theme, now_ms);
        rest
    } else {
        body
    };
    transcript_pane(frame, model, app, shown, transcript, theme);
    frame.render_widget(
        Paragraph::new(status_line(model, app, theme, now_ms, status.width)),
        status,
    );
    if app.help {
        help(frame, area, theme);
    }
    glyphs::settle(frame.buffer_mut());
}

fn header_lines(model: &RunModel, theme: Theme, now_ms: u64) -> Vec<Line<'static>> {
    let live = model.live();
    let hat = live.map_or("-", |i| i.hat.as_str());
    let backend = live.map_or(model.backend.as_str(), |i| i.backend.as_str());
    let model_name = header_model(model).unwrap_or("?");
    let number = live.map_or(0, |i| i.number);
    let elapsed = model.elapsed_at(now_ms);
    let runtime = if model.max_runtime_secs > 0 {
        format!(
            "{}/{}",
            clock(elapsed),
            clock(model.max_runtime_secs.saturating_mul(1000))
        )
    } else {
        clock(elapsed)
    };
    // The totals count finished iterations only: an iteration's cost and tokens are
    // known when it ends (a custom agent's cost never). While one runs, they are the
    // least the run has used, and say so.
    // So too when the loop stopped without ending the iteration (ralph was killed).
    let running = model.unended();
    let cost = header_cost(model, running);
    let tokens_complete = model.totals.tokens_complete && !running;
    let tokens = match TokenCount::of(model.totals.tokens.sum(), tokens_complete) {
        TokenCount::Unknown => "tokens unknown".to_owned(),
        count => format!("{} tokens", count.cell(|n| n.to_string())),
    };
    vec![
        Line::from(vec![
            Span::styled(format!("ralph {} ", model.run_id), theme.title()),
            Span::raw(format!("hat {hat} · {backend} · {model_name}")),
        ]),
        Line::from(format!(
            "iteration {number}/{} · {runtime} · {cost} · {tokens}",
            model.max_iterations
        )),
    ]
}

/// The model at work: the live iteration's, or until it says (pi names its model only
/// when an iteration ends), the newest one its backend named before.
fn header_model(model: &RunModel) -> Option<&str> {
    let live = model.live()?;
    model
        .iterations
        .iter()
        .rev()
        .filter(|it| it.backend == live.backend)
        .find_map(|it| it.model.as_deref())
}

/// The run's cost against its limit, saying how sure it is as the line view does, to its
/// places (`$0.0042`: a cheap model's run is not `$0.00`): `$0.4200`, `at least $0.4200`
/// when some iteration's cost is unknown, `cost unknown` when none is known (an agent that
/// reports no cost is not free); never exact while an iteration is `running`, whose cost is
/// not in the totals yet; `~$0.4200` when some of it is ralph's estimate.
fn header_cost(model: &RunModel, running: bool) -> String {
    let totals = &model.totals;
    let exact = totals.cost_complete && !running;
    let mark = if totals.cost_estimated { "~" } else { "" };
    let spent = format!("{mark}{}", format_usd(totals.cost_usd));
    let Some(max) = model.max_cost_usd else {
        return match (exact, totals.cost_usd == 0.0) {
            (true, _) => spent,
            (false, true) => "cost unknown".to_owned(),
            (false, false) => format!("at least {spent}"),
        };
    };
    let limit = format_usd_limit(max);
    match (exact, totals.cost_usd == 0.0) {
        (true, _) => format!("{spent}/{limit}"),
        (false, true) => format!("cost unknown (limit {limit})"),
        (false, false) => format!("at least {spent}/{limit}"),
    }
}

/// An iteration's cost in the list, marked as the line view marks it (`~` an estimate,
/// `≥` the least it cost, as the header marks tokens); nothing while it runs.
fn iteration_cost(it: &Iteration) -> String {
    let mark = match it.cost_kind {
        CostKind::Reported => "",
        CostKind::Estimated => "~",
        CostKind::Unknown => "≥",
    };
    match (&it.outcome, it.cost_usd) {
        (None, _) => String::new(),
        (Some(_), Some(cost)) => format!(" {mark}{}", format_usd(cost)),
        (Some(_), None) => " cost unknown".to_owned(),
    }
}

/// The line view's mark, or `…` while the iteration runs.
fn outcome_mark(it: &Iteration) -> &'static str {
    it.outcome.as_ref().map_or("…", |o| o.ending().mark())
}

fn iteration_list(
    frame: &mut Frame<'_>,
    model: &RunModel,
    shown: Option<usize>,
    area: Rect,
    theme: Theme,
    now_ms: u64,
) {
    let items: Vec<ListItem<'_>> = model
        .iterations
        .iter()
        .map(|it| {
            let took = match it.duration_ms {
                Some(ms) => duration_ms(ms),
                None => model
                    .unended_for(it, now_ms)
                    .map_or_else(String::new, duration_ms),
            };
            let cost = iteration_cost(it);
            let gates = if it.gates_passed + it.gates_failed > 0 {
                format!(
                    " gates {}/{}",
                    it.gates_passed,
                    it.gates_passed + it.gates_failed
                )
            } else {
                String::new()
            };
            let style = match it.outcome.as_ref().map(Outcome::ending) {
                None | Some(Ending::Succeeded) => ratatui::style::Style::default(),
                Some(Ending::Stopped) => theme.notice(),
                Some(Ending::Failed) => theme.error(),
            };
            ListItem::new(vec![
                Line::styled(
                    format!("{} {:>2} {}", outcome_mark(it), it.number, it.hat),
                    style,
                ),
                Line::styled(
                    format!("  {took}{cost} ev{}{gates}", it.events_emitted),
                    style,
                ),
            ])
        })
        .collect();
    let mut state = ListState::default().with_selected(shown);
    let list = List::new(items)
        .block(Block::default().borders(Borders::RIGHT).title("iterations"))
        .highlight_style(theme.selected());
    frame.render_stateful_widget(list, area, &mut state);
}

fn transcript_pane(
    frame: &mut Frame<'_>,
    model: &RunModel,
    app: &mut App,
    shown: Option<usize>,
    area: Rect,
    theme: Theme,
) {
    let Some(shown) = shown else {
        frame.render_widget(Paragraph::new("waiting for the first iteration…"), area);
        return;
    };
    let it = &model.iterations[shown];
    let outcome = it
        .outcome
        .as_ref()
        .map_or_else(|| unended_words(model).to_owned(), Outcome::short_words);
    let attempt = attempt_part(it.attempt);
    let title = format!(
        " iteration {}{attempt} · {} · {} {}",
        it.number,
        it.hat,
        outcome,
        if app.follow { "· following" } else { "" }
    );
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(title, theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    app.transcript_size = (inner.width, inner.height);
    if app.follow {
        app.look.top = None;
    }
    let window = window::window(it, &app.look, inner.width, inner.height, theme);
    // Not following, the window stays on the lines it shows while the agent writes more
    // (and where it was put past the end, on the end's).
    if !app.follow {
        app.look.top = Some(window.top);
    }
    app.laid_out = window.laid_out;
    frame.render_widget(Paragraph::new(window.lines), inner);
}

fn status_line(
    model: &RunModel,
    app: &App,
    theme: Theme,
    now_ms: u64,
    width: u16,
) -> Line<'static> {
    match &app.prompt {
        Prompt::Search(text) => return search_prompt(text, usize::from(width)),
        Prompt::ConfirmQuit => {
            return Line::styled("stop the loop and quit? (y/n)", theme.notice());
        }
        Prompt::None => {}
    }
    if let Some(message) = &app.message {
        return Line::styled(message.clone(), theme.notice());
    }
    // Stopping takes a while (the agent's grace); the keys pressed meanwhile do not hide it.
    if let Some(stopping) = &app.stopping
        && model.finished.is_none()
    {
        return Line::styled(stopping.clone(), theme.notice());
    }
    if let Some(wait) = &model.waiting {
        let left = Duration::from_millis(wait.until_ms.saturating_sub(now_ms));
        let text = limit_lines::countdown(&wait.backend, left, wait.until_ms / 1000, now_ms / 1000);
        return Line::from(vec![
            Span::styled(text, theme.notice()),
            Span::styled("  ? help".to_owned(), theme.dim()),
        ]);
    }
    let style = if model.finished.is_some() {
        theme.title()
    } else {
        theme.dim()
    };
    // Not the time ralph was stopped (Ctrl-Z), which the agent did not spend silent.
    let quiet = (now_ms.saturating_sub(model.heard_ms)).saturating_sub(model.paused_since_heard_ms);
    let activity = match model.live() {
        // `writing` said of an agent that wrote nothing for a while would be untrue.
        Some(it) if model.streaming && model.running() && quiet >= QUIET_AFTER_MS => {
            format!("iteration {}: no output for {}", it.number, clock(quiet))
        }
        _ => model.activity.clone(),
    };
    Line::from(vec![
        Span::styled(activity, style),
        Span::styled("  ? help".to_owned(), theme.dim()),
    ])
}

/// An iteration with no outcome yet, in words: it runs, unless its loop stopped without
/// ending it (ralph was killed).
fn unended_words(model: &RunModel) -> &'static str {
    if model.finished.is_none() {
        "running"
    } else {
        "never ended"
    }
}

/// The search being typed, in `width` columns: its end, where the typing is, when all
/// of it does not fit (`/…` and the last of it).
fn search_prompt(text: &str, width: usize) -> Line<'static> {
    let whole = format!("/{text}");
    if usize::from(whole.as_str().cell_width()) <= width {
        return Line::from(whole);
    }
    let room = width.saturating_sub("/…".chars().count());
    let mut used = 0;
    let mut start = text.len();
    for (at, grapheme) in text.grapheme_indices(true).rev() {
        used += usize::from(grapheme.cell_width());
        if used > room {
            break;
        }
        start = at;
    }
    Line::from(format!("/…{}", &text[start..]))
}

fn help(frame: &mut Frame<'_>, area: Rect, theme: Theme) {
    // As wide as its longest line and the border, where the screen has the room.
    let widest = HELP
        .iter()
        .map(|(_, what)| HELP_KEYS_WIDTH + 1 + what.chars().count() + 2)
        .max()
        .unwrap_or(0);
    let width = area.width.min(u16::try_from(widest).unwrap_or(u16::MAX));
    let height = area
        .height
        .min(u16::try_from(HELP.len()).unwrap_or(u16::MAX) + 2);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let lines: Vec<Line<'_>> = HELP
        .iter()
        .map(|(keys, what)| {
            Line::from(vec![
                Span::styled(format!("{keys:>HELP_KEYS_WIDTH$} "), theme.tool()),
                Span::raw(*what),
            ])
        })
        .collect();
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" keys (any key closes) ")),
        popup,
    );
}
