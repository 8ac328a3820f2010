//! The commented `ralph.yml` that `ralph init --backend NAME` writes, generated from
//! the key table ([`super::keys`]): every key with a default is written with it, each
//! under its doc line, so the template cannot drift from the behaviour it documents.
//!
//! With `--preset NAME` the same template carries the preset's workflow: its hats (as
//! the preset writes them, comments included), its `event_loop` topology keys and its
//! commented gate suggestion, in place of the generic examples.

use super::choice::BackendChoice;
use super::key::{Default, Init, Key, Section};
use super::preset::Preset;

/// The widest a comment line of the template gets (wider doc lines are wrapped).
const COMMENT_WIDTH: usize = 88;

const HEADER: &str = "\
# ralph.yml: what ralph runs, and when it stops.
# Every key is optional: each one with a default is written with it, the others (and
# those only a custom backend reads) are commented out with an example. The reference
# (docs/config.md) lists every key, a hat's included. `ralph run --dry-run` prints what
# a run would use.
";

/// A commented `ralph.yml` for `backend` (which may be `auto`).
pub fn init_template(backend: BackendChoice) -> String {
    render(backend, &Workflow::default())
}

/// The template of [`init_template`] with the workflow of `preset`.
pub fn preset_template(backend: BackendChoice, preset: &Preset) -> String {
    render(backend, &Workflow::of(preset))
}

fn render(backend: BackendChoice, workflow: &Workflow) -> String {
    let mut out = String::from(HEADER);
    if !workflow.header.is_empty() {
        out.push_str("#\n");
        out.push_str(&workflow.header);
    }
    for key in Section::Top.keys() {
        out.push('\n');
        write_key(&mut out, key, 0, backend, workflow);
    }
    out
}

/// What a preset puts in the template: its text cut at its top-level keys.
#[derive(Default)]
struct Workflow {
    /// The preset's leading comment, and where it comes from.
    header: String,
    /// `event_loop` keys and their values, as the preset writes them.
    event_loop: Vec<(String, String)>,
    /// The `hats:` block.
    hats: Option<String>,
    /// The commented `gates:` suggestion, with the comment that leads into it.
    gates: Option<String>,
}

impl Workflow {
    fn of(preset: &Preset) -> Workflow {
        let lines: Vec<&str> = preset.text.lines().collect();
        let mut header: String = lines
            .iter()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        comment(
            &mut header,
            "",
            &format!(
                "Written by `ralph init --preset {0}`; `ralph run -H builtin:{0}` uses the same \
                 hats with another ralph.yml.",
                preset.name
            ),
        );
        Workflow {
            header,
            event_loop: block(&lines, "event_loop:")
                .map(|b| {
                    b.lines()
                        .filter_map(|l| l.strip_prefix("  "))
                        .filter(|l| !l.starts_with([' ', '#']))
                        .filter_map(|l| l.split_once(": "))
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            hats: block(&lines, "hats:"),
            gates: commented_block(&lines, "# gates:"),
        }
    }
}

/// The top-level key starting with `start` and every indented or empty line under it.
fn block(lines: &[&str], start: &str) -> Option<String> {
    let first = lines.iter().position(|l| l.starts_with(start))?;
    let mut end = first + 1;
    while end < lines.len() && (lines[end].is_empty() || lines[end].starts_with(' ')) {
        end += 1;
    }
    while end > first + 1 && lines[end - 1].is_empty() {
        end -= 1;
    }
    Some(lines[first..end].iter().map(|l| format!("{l}\n")).collect())
}

/// The run of comment lines that holds the line starting with `marker`.
fn commented_block(lines: &[&str], marker: &str) -> Option<String> {
    let at = lines.iter().position(|l| l.starts_with(marker))?;
    let mut first = at;
    while first > 0 && lines[first - 1].starts_with('#') {
        first -= 1;
    }
    let mut end = at;
    while end < lines.len() && lines[end].starts_with('#') {
        end += 1;
    }
    Some(lines[first..end].iter().map(|l| format!("{l}\n")).collect())
}

fn write_key(
    out: &mut String,
    key: &Key,
    depth: usize,
    backend: BackendChoice,
    workflow: &Workflow,
) {
    let indent = "  ".repeat(depth);
    if matches!(key.init, Init::InExample) {
        return;
    }
    let from_preset = match (key.section, key.name) {
        (Section::Top, "hats") => workflow.hats.as_deref(),
        (Section::Top, "gates") => workflow.gates.as_deref(),
        _ => None,
    };
    if let Some(text) = from_preset {
        comment(out, &indent, key.doc);
        out.push_str(text);
        return;
    }
    if key.section == Section::EventLoop
        && let Some((_, value)) = workflow.event_loop.iter().find(|(k, _)| k == key.name)
    {
        comment(out, &indent, key.doc);
        out.push_str(&format!("{indent}{}: {value}\n", key.name));
        return;
    }
    match (key.init, key.default) {
        // Commented out, so the comment says what leaving it out means.
        (Init::Example(_) | Init::ForCustom(_), Default::Unset(unset)) => {
            comment(out, &indent, &format!("{} If unset: {unset}.", key.doc));
        }
        _ => comment(out, &indent, key.doc),
    }
    let name = key.name;
    match key.init {
        Init::Keys => {
            out.push_str(&format!("{indent}{name}:\n"));
            for child in key.children() {
                write_key(out, child, depth + 1, backend, workflow);
            }
        }
        Init::Default => match key.default {
            Default::Value(value) => out.push_str(&format!("{indent}{name}: {}\n", value.yaml())),
            // The table's tests require a value for `Init::Default`.
            Default::Unset(_) | Default::Required | Default::Keys => {}
        },
        Init::Backend => out.push_str(&format!("{indent}{name}: {}\n", backend.name())),
        Init::ForCustom(example) => {
            let mark = if backend == BackendChoice::CUSTOM {
                ""
            } else {
                "# "
            };
            out.push_str(&format!("{indent}{mark}{name}: {example}\n"));
        }
        Init::Example(example) => out.push_str(&format!("{indent}# {name}: {example}\n")),
        Init::Block { example, note } => {
            comment(out, &indent, note);
            for line in example.lines() {
                out.push_str(&format!("{indent}# {line}\n"));
            }
        }
        Init::InExample => {}
    }
}

/// `text` as comment lines, wrapped at word boundaries.
fn comment(out: &mut String, indent: &str, text: &str) {
    let prefix = format!("{indent}# ");
    let mut line = prefix.clone();
    for word in text.split_whitespace() {
        if line.len() > prefix.len() && line.len() + 1 + word.len() > COMMENT_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clone_from(&prefix);
        } else if line.len() > prefix.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}
