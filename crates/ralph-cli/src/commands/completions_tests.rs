use clap::CommandFactory;

use crate::cli::Cli;

fn script(shell: clap_complete::Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ralph", &mut script);
    String::from_utf8(script).expect("UTF-8")
}

/// Where the first `close` not escaped by a backslash is in `text`, after `from`.
fn unescaped(text: &str, close: char, from: usize) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text[from..].char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == close && !escaped => return Some(from + i),
            _ => escaped = false,
        }
    }
    None
}

/// Each option spec of zsh's `_arguments` (`'-H+[help]:MESSAGE:ACTION' \`) that takes a
/// value: its flag, message and action. zsh splits a spec at every colon not escaped.
fn zsh_value_specs(script: &str) -> Vec<(String, String, String)> {
    let mut specs = Vec::new();
    for line in script.lines() {
        let spec = line.trim_start_matches('\'');
        let spec = spec.strip_prefix('*').unwrap_or(spec);
        let spec = match spec.strip_prefix('(') {
            Some(rest) => unescaped(rest, ')', 0).map_or(rest, |end| &rest[end + 1..]),
            None => spec,
        };
        if !line.starts_with('\'') || !spec.starts_with('-') {
            continue;
        }
        let Some(open) = unescaped(spec, '[', 0) else {
            continue;
        };
        let Some(close) = unescaped(spec, ']', open) else {
            continue;
        };
        let rest = spec[close + 1..].trim_start_matches(':');
        if rest.is_empty() || rest.starts_with('\'') {
            continue;
        }
        let end = unescaped(rest, ':', 0).unwrap_or(rest.len());
        let action = rest.get(end + 1..).unwrap_or_default();
        specs.push((
            spec[..open].to_owned(),
            rest[..end].to_owned(),
            action.to_owned(),
        ));
    }
    specs
}

#[test]
fn every_zsh_option_value_has_one_message_and_an_action() {
    let specs = zsh_value_specs(&script(clap_complete::Shell::Zsh));
    assert!(
        specs.iter().any(|(flag, _, _)| flag == "-H+"),
        "no -H in {specs:?}"
    );
    for (flag, message, action) in &specs {
        // An action is a function (`_files`), a list (`(a b)`), or nothing (` `): a
        // colon in the message would have zsh read the message's rest as the action.
        assert!(
            action.starts_with(['_', '(', ' ']),
            "{flag}: message `{message}`, action `{action}`"
        );
    }
}

#[test]
fn no_value_name_holds_what_a_completion_script_quotes() {
    fn walk(cmd: &clap::Command, path: &str, bad: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            for name in arg.get_value_names().unwrap_or_default() {
                if name.contains([':', '\'', '"', '`', '$', '\\']) {
                    bad.push(format!("{path} {}: {name}", arg.get_id()));
                }
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), bad);
        }
    }
    let mut bad = Vec::new();
    walk(&Cli::command(), "ralph", &mut bad);
    assert!(bad.is_empty(), "{bad:?}");
}
