//! The few styles ralph's terminal output uses, in one place.

use anstyle::AnsiColor;
use anstyle::Style;

/// Markdown headings and the agent's bold text.
pub(crate) const STRONG: Style = Style::new().bold();
/// Inline code and code blocks.
pub(crate) const CODE: Style = AnsiColor::Cyan.on_default();
/// Thinking, quotes, noise: there but quiet.
pub(crate) const DIM: Style = Style::new().dimmed();
/// Tool calls.
pub(crate) const TOOL: Style = AnsiColor::Blue.on_default().bold();
/// Failures.
pub(crate) const ERROR: Style = AnsiColor::Red.on_default().bold();
/// Retries, rate limits, compaction: the agent is handling something.
pub(crate) const NOTICE: Style = AnsiColor::Yellow.on_default();
/// An iteration's header.
pub(crate) const HEADER: Style = AnsiColor::Magenta.on_default().bold();
/// Events the agent emitted.
pub(crate) const EVENT: Style = AnsiColor::Magenta.on_default();
/// Success: an iteration or a run that ended well.
pub(crate) const SUCCESS: Style = AnsiColor::Green.on_default().bold();
