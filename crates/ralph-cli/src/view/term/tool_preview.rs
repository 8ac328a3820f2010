//! One-line previews of what a tool call does: the command, path or pattern it was
//! given, whatever the agent calls the field.

use serde_json::Value;

/// Longest preview, in characters: one terminal line with room for the tool name.
pub(crate) const PREVIEW_CHARS: usize = 100;

/// Argument names that say what a call does, most telling first. Agents differ: pi's
/// `bash {command}`, Claude's `Bash {command}`, Codex's `exec_command {cmd}`, pi's
/// `write {path}`, Claude's `Write {file_path}`, OpenCode's `write {filePath}`.
const TELLING_KEYS: [&str; 12] = [
    "command",
    "cmd",
    "pattern",
    "query",
    "file_path",
    "filePath",
    "path",
    "url",
    "description",
    "prompt",
    "title",
    "content",
];

/// A short, single-line description of a call's arguments (raw JSON as the agent gave it).
pub(crate) fn preview(args: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(args) else {
        return one_line(args);
    };
    let Value::Object(map) = &value else {
        return one_line(&value.to_string());
    };
    let telling = TELLING_KEYS
        .iter()
        .find_map(|key| map.get(*key).and_then(Value::as_str))
        .or_else(|| map.values().find_map(Value::as_str));
    match telling {
        Some(text) => {
            // A search gets its scope too: `grep pattern in path`.
            let scope = map
                .get("pattern")
                .and(map.get("path").or(map.get("glob")))
                .and_then(Value::as_str)
                .filter(|scope| *scope != text);
            match scope {
                Some(scope) => one_line(&format!("{text} in {scope}")),
                None => one_line(text),
            }
        }
        None if map.is_empty() => String::new(),
        None => one_line(&value.to_string()),
    }
}

/// The first lines of a tool's output, for `-v`.
pub(crate) fn output_preview(output: &str, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = output
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(max_lines)
        .map(truncate)
        .collect();
    let total = output.lines().filter(|l| !l.trim().is_empty()).count();
    if total > max_lines {
        lines.push(format!("… {} more lines", total - max_lines));
    }
    lines
}

/// Why a tool failed, as one line of at most [`PREVIEW_CHARS`]: the first line of its
/// output and, when there are more, the last one that says something. A tool says why
/// at either end: `Exit code 2` then the error, an input validation error's name then
/// its details (whose very last lines are closing brackets), a Python traceback whose
/// exception comes last, a test runner's summary line.
pub(crate) fn failure_preview(output: &str) -> String {
    let mut lines: Vec<&str> = (output.lines().map(str::trim))
        .filter(|l| !l.is_empty())
        .collect();
    // pi ends a failed command's output with its exit status: a status, not the reason,
    // which is the line before. It is kept, shortest, at the end.
    let status = match lines.as_slice() {
        [_, .., last] => last
            .strip_prefix(PI_EXIT_STATUS)
            .filter(|code| code.parse::<i64>().is_ok()),
        _ => None,
    };
    let suffix = match status {
        Some(code) => {
            lines.pop();
            format!(" · exit {code}")
        }
        None => String::new(),
    };
    let room = PREVIEW_CHARS.saturating_sub(suffix.chars().count());
    format!("{}{suffix}", ends(&lines, room))
}

/// How pi's bash tool ends the output of a command that failed, before its exit code.
const PI_EXIT_STATUS: &str = "Command exited with code ";

/// The first of `lines` and the last that says something, in at most `room` characters.
fn ends(lines: &[&str], room: usize) -> String {
    let Some(first) = lines.first() else {
        return String::new();
    };
    let last = (lines.iter().rposition(|l| says_something(l))).filter(|&at| at > 0);
    let Some(at) = last else {
        return shortened(&one_line(first), room);
    };
    let gap = if at > 1 { " · … · " } else { " · " };
    let last = one_line(lines[at]);
    // The end is the likelier reason: the start gives up room first, down to half.
    let inner = room.saturating_sub(gap.chars().count());
    let first_room = inner.saturating_sub(last.chars().count()).max(inner / 2);
    let first = shortened(&one_line(first), first_room);
    shortened(&format!("{first}{gap}{last}"), room)
}

/// Whether a line holds more than brackets, punctuation and markup tags
/// (`]</tool_use_error>`, `}`, `);`).
fn says_something(line: &str) -> bool {
    let mut in_tag = false;
    line.chars().any(|c| match c {
        '<' => {
            in_tag = true;
            false
        }
        '>' => {
            in_tag = false;
            false
        }
        c => !in_tag && c.is_alphanumeric(),
    })
}

/// The last lines of a tool's output, for `-v` on a failure, after a count of those
/// left out.
pub(crate) fn output_tail(output: &str, max_lines: usize) -> Vec<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let skipped = lines.len().saturating_sub(max_lines);
    let mut shown = Vec::with_capacity(max_lines + 1);
    if skipped > 0 {
        shown.push(format!("… {skipped} earlier lines"));
    }
    shown.extend(lines[skipped..].iter().map(|l| truncate(l)));
    shown
}

/// Collapses whitespace runs (newlines included) and truncates.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > PREVIEW_CHARS {
            break;
        }
    }
    truncate(&out)
}

fn truncate(line: &str) -> String {
    shortened(line, PREVIEW_CHARS)
}

/// `line` cut to at most `max` characters, the last of them `…` when cut.
pub(crate) fn shortened(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
#[path = "tool_preview_tests.rs"]
mod tests;
