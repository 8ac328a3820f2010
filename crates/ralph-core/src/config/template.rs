//! The commented `ralph.yml` that `ralph init --backend NAME` writes, generated from
//! the key table ([`super::keys`]): every key with a default is written with it, each
//! under its doc line, so the template cannot drift from the behaviour it documents.

use super::choice::BackendChoice;
use super::key::{Default, Init, Key, Section};

/// The widest a comment line of the template gets (wider doc lines are wrapped).
const COMMENT_WIDTH: usize = 88;

const HEADER: &str = "\
# ralph.yml: what ralph runs, and when it stops.
# Every key is optional: each one with a default is written with it, the others are
# commented out with an example. The configuration reference (docs/config.md) lists
# every key, a hat's included. `ralph run --dry-run` prints what a run would use.
";

/// A commented `ralph.yml` for `backend` (which may be `auto`).
pub fn init_template(backend: BackendChoice) -> String {
    let mut out = String::from(HEADER);
    for key in Section::Top.keys() {
        out.push('\n');
        write_key(&mut out, key, 0, backend);
    }
    out
}

fn write_key(out: &mut String, key: &Key, depth: usize, backend: BackendChoice) {
    let indent = "  ".repeat(depth);
    if matches!(key.init, Init::InExample) {
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
                write_key(out, child, depth + 1, backend);
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
