//! One frame: the header (run, hat, backend, model, iteration x/limit, elapsed against
//! the runtime limit, cost against the budget, tokens), the iteration list, the selected
//! iteration's transcript, and the status line; help over it on `?`. Every size down to
//! one cell draws without panicking: parts that do not fit are left out.

use std::time::Duration;

use ralph_core::machine::format_usd_limit;
use ralph_core::token_count::TokenCount;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};

use super::app::{App, Prompt};
use super::lines;
use super::mirror::Outcome;
use super::model::{Iteration, RunModel};
use super::theme::Theme;
use crate::view::term::ending::Ending;
use crate::view::term::figures::{attempt_part, clock, duration_ms};
use crate::view::term::limit_lines;

/// Below this width the iteration list is left out: the transcript needs the room.
const LIST_MIN_TOTAL_WIDTH: u16 = 60;
/// The iteration list's width when shown.
const LIST_WIDTH: u16 = 30;
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
    ("?", "this help"),
    ("q", "quit (ralph run --tui asks, then stops the loop)"),
];

/// `now_ms`: the wall clock in Unix milliseconds, for the running iteration's time.
pub(crate) fn frame(
    frame: &mut Frame<'_>,
    model: &RunModel,
    app: &mut App,
    theme: Theme,
    now_ms: u64,
) {
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
        Paragraph::new(status_line(model, app, theme, now_ms)),
        status,
    );
    if app.help {
        help(frame, area, theme);
    }
}

fn header_lines(model: &RunModel, theme: Theme, now_ms: u64) -> Vec<Line<'static>> {
    let live = model.live();
    let hat = live.map_or("-", |i| i.hat.as_str());
    let backend = live.map_or(model.backend.as_str(), |i| i.backend.as_str());
    let model_name = live.and_then(|i| i.model.as_deref()).unwrap_or("?");
    let number = live.map_or(0, |i| i.number);
    let mut elapsed = model.totals.elapsed_ms;
    if model.running()
        && let Some(it) = live
    {
        elapsed = elapsed.saturating_add(now_ms.saturating_sub(it.started_at_ms));
    }
    let runtime = if model.max_runtime_secs > 0 {
        format!(
            "{}/{}",
            clock(elapsed),
            clock(model.max_runtime_secs.saturating_mul(1000))
        )
    } else {
        clock(elapsed)
    };
    let cost = match model.max_cost_usd {
        Some(max) => {
            // Spent to as many places as the limit shows (cents at least, four at most),
            // so that `$0.0051/$0.015` compares and `$0.01/$0.015` does not mislead.
            let limit = format_usd_limit(max);
            let places = limit
                .split_once('.')
                .map_or(2, |(_, decimals)| decimals.len())
                .clamp(2, 4);
            format!("${:.places$}/{limit}", model.totals.cost_usd)
        }
        None => format!("${:.2}", model.totals.cost_usd),
    };
    let tokens = match TokenCount::of(model.totals.tokens.sum(), model.totals.tokens_complete) {
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
                None if model.finished.is_none() => {
                    duration_ms(now_ms.saturating_sub(it.started_at_ms))
                }
                None => String::new(),
            };
            let cost = it.cost_usd.map(|c| format!(" ${c:.2}")).unwrap_or_default();
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
        .map_or_else(|| "running".to_owned(), Outcome::short_words);
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
        app.look.scroll_back = 0;
    }
    let mut window = lines::window(it, &app.look, inner.width, inner.height, theme);
    if let Some(max) = window.max_scroll_back
        && app.look.scroll_back > max
    {
        app.look.scroll_back = max;
        window = lines::window(it, &app.look, inner.width, inner.height, theme);
    }
    frame.render_widget(Paragraph::new(window.lines), inner);
}

fn status_line(model: &RunModel, app: &App, theme: Theme, now_ms: u64) -> Line<'static> {
    match &app.prompt {
        Prompt::Search(text) => return Line::from(format!("/{text}")),
        Prompt::ConfirmQuit => {
            return Line::styled("stop the loop and quit? (y/n)", theme.notice());
        }
        Prompt::None => {}
    }
    if let Some(message) = &app.message {
        return Line::styled(message.clone(), theme.notice());
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
    Line::from(vec![
        Span::styled(model.activity.clone(), style),
        Span::styled("  ? help".to_owned(), theme.dim()),
    ])
}

fn help(frame: &mut Frame<'_>, area: Rect, theme: Theme) {
    let width = area.width.min(64);
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
                Span::styled(format!("{keys:>18} "), theme.tool()),
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
