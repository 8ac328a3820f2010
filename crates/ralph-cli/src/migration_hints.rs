//! What ralph says to a command line of ralph-orchestrator that it does not take: the one
//! table of the incumbent's commands and flags with what to use here, which
//! docs/migrating.md's table "Commands and flags that are not here" shows to people
//! (tests/migrating_doc.rs keeps the two in step).
//!
//! clap alone prints a bare "unexpected argument", or worse a "similar" command that has
//! nothing to do with it (`ralph clean` → `plan`, `ralph loops` → `hooks`): someone moving
//! a script over needs the replacement, so the hint replaces clap's tip.

use std::ffi::OsString;

use clap::CommandFactory as _;
use clap::builder::StyledStr;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::cli::Cli;

/// Where the table is explained, named at the end of every hint.
const DOC: &str = "docs/migrating.md";

/// A command line of ralph-orchestrator that ralph refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// A command ralph does not have: `ralph NAME`, or `ralph PARENT NAME` for one under a
    /// command ralph has (`"tools interact"`).
    Command(&'static str),
    /// A flag a command does not take (`""`: before any command, where ralph takes none).
    Flag(&'static str, &'static str),
    /// Words after `--`, which the incumbent gave to the agent: `ralph COMMAND … -- ARGS`.
    AfterDashes(&'static str),
}

/// One row of the table: the incumbent's forms and what to do in ralph.
#[derive(Debug)]
pub(crate) struct Hint {
    pub(crate) forms: &'static [Form],
    /// What to use instead; it names every `code` span of the row's "in ralph" cell.
    pub(crate) instead: &'static str,
}

use Form::{AfterDashes, Command, Flag};

/// Every row, in the order of docs/migrating.md's table.
pub(crate) static HINTS: &[Hint] = &[
    Hint {
        forms: &[
            Flag("run", "-a"),
            Flag("run", "--autonomous"),
            Flag("run", "--no-tui"),
        ],
        instead: "`ralph run` never opens a full-screen view unless given `--tui`, so leave \
                  the flag out",
    },
    Hint {
        forms: &[Command("resume"), Flag("run", "--loop-id")],
        instead: "`ralph run --continue` resumes the workspace's last run",
    },
    Hint {
        forms: &[Flag("run", "--skip-preflight")],
        instead: "nothing to skip: `ralph run` checks the config and its agents as it starts, \
                  `ralph doctor` checks them on request",
    },
    Hint {
        forms: &[Flag("run", "--exclusive")],
        instead: "a second `ralph run` in a workspace is refused (nothing waits); run it in a \
                  worktree with `ralph run --worktree`",
    },
    Hint {
        forms: &[Flag("run", "--idle-timeout")],
        instead: "set `cli.idle_timeout_seconds` in `ralph.yml`",
    },
    Hint {
        forms: &[Flag("run", "--record-session")],
        instead: "every iteration's prompt and raw output are kept under \
                  `.ralph/runs/<id>/iterations/` (`transcripts:`); \
                  `ralph inspect --run ID --iteration N` reads one",
    },
    Hint {
        forms: &[Flag("plan", "--teams")],
        instead: "Claude Code's agent teams are its own setting, and `ralph plan` passes its \
                  environment on: `CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 ralph plan -b claude`, \
                  then ask for a team in the idea",
    },
    Hint {
        forms: &[AfterDashes("run"), AfterDashes("plan")],
        instead: "give the agent its extra arguments with `cli.args` (or a hat's `args`) in \
                  `ralph.yml`",
    },
    Hint {
        forms: &[Command("preflight")],
        instead: "`ralph doctor` checks the config, the agents, the hooks and the skills \
                  directories; `ralph hooks validate` the hooks alone",
    },
    Hint {
        forms: &[Command("hats")],
        instead: "`ralph run --dry-run` shows the resolved hats, `ralph doctor` their problems \
                  and agents; `hats list-presets` is `ralph init --list-presets`",
    },
    Hint {
        forms: &[Command("loops")],
        instead: "`ralph runs` lists the runs and worktree loops; `ralph runs land`, \
                  `ralph runs rm`, `ralph runs prune`, `ralph watch RUN`",
    },
    Hint {
        forms: &[Command("clean")],
        instead: "`rm .ralph/agent/scratchpad.md` for a clean page; `ralph runs prune` removes \
                  old runs",
    },
    Hint {
        forms: &[
            Flag("events", "--iteration"),
            Flag("events", "--file"),
            Flag("events", "--clear"),
        ],
        instead: "`ralph events [--run ID] [--last N] [--topic T]`: each run has its own \
                  events, so there is nothing to clear",
    },
    Hint {
        forms: &[Flag("emit", "--ts"), Flag("emit", "--file")],
        instead: "ralph times each event itself, and `ralph emit` writes to \
                  `$RALPH_EVENTS_FILE`, which `ralph run` sets",
    },
    Hint {
        forms: &[Command("tutorial")],
        instead: "the README and the docs/ directory",
    },
    Hint {
        forms: &[
            Flag("", "-c"),
            Flag("", "--config"),
            Flag("", "-H"),
            Flag("", "--hats"),
            Flag("", "-v"),
            Flag("", "--verbose"),
            Flag("", "--color"),
        ],
        instead: "the flag goes after the command's name: `ralph run -c FILE`, \
                  `ralph run -H HATS`, `ralph run -v`",
    },
    Hint {
        forms: &[Command("code-task"), Command("task")],
        instead: "`ralph plan IDEA` writes a spec, which `ralph run -P SPEC` carries out",
    },
    Hint {
        forms: &[Command("tui"), Command("web")],
        instead: "`ralph watch` follows a run full-screen from another terminal; \
                  `ralph run --tui` shows it in the run's own",
    },
    Hint {
        forms: &[Command("bot"), Command("mcp")],
        instead: "no chat bot and no MCP server; `ralph steer` sends a running loop a \
                  message, `ralph run --output json` streams its events, and a hook can post \
                  to a chat",
    },
    Hint {
        forms: &[Command("tools interact")],
        instead: "no chat updates: what the agent writes is shown live by `ralph run` and \
                  `ralph watch RUN`, and a hook can post to a chat",
    },
    Hint {
        forms: &[Command("wave")],
        instead: "no waves; parallel work runs as worktree loops, one per task, each started \
                  with `ralph run --worktree` and a name of its own (`--worktree=NAME`)",
    },
];

/// Adds the hint for `args` (the whole command line, program first) to `err` when clap
/// refused a form of the table, and drops clap's own guess, which would point elsewhere.
/// Returns whether it did.
pub(crate) fn add_migration_hint(err: &mut clap::Error, args: &[OsString]) -> bool {
    let Some((form, hint)) = find(err, args) else {
        return false;
    };
    for guess in [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::Suggested,
    ] {
        err.remove(guess);
    }
    err.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![StyledStr::from(format!(
            "{} is ralph-orchestrator's; in ralph: {} (see {DOC})",
            shown(form),
            hint.instead
        ))]),
    );
    // clap's usage line follows its guess (`ralph events --version`): show the command's.
    let mut command = Cli::command();
    command.build();
    let target = match form {
        Form::Flag(name, _) | Form::AfterDashes(name) if !name.is_empty() => {
            command.find_subcommand_mut(name)
        }
        // `tools interact`: the usage of `ralph tools`, which has the commands to use.
        Form::Command(path) => {
            (path.split_once(' ')).and_then(|(parent, _)| command.find_subcommand_mut(parent))
        }
        _ => None,
    };
    let usage = match target {
        Some(sub) => sub.render_usage(),
        None => command.render_usage(),
    };
    err.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    true
}

/// What clap refused, read from its error and the command line.
enum Refused {
    /// A command it does not know, after the commands it was typed under
    /// (`tools interact`).
    Command(String),
    /// A word a command (`None`: the top level) does not take.
    Word {
        command: Option<String>,
        /// The flag, without an `=VALUE`.
        flag: String,
        /// Whether it came after `--`.
        after_dashes: bool,
    },
}

impl Refused {
    fn read(err: &clap::Error, args: &[OsString]) -> Option<Refused> {
        match (err.kind(), err.get(ContextKind::InvalidSubcommand)) {
            (ErrorKind::InvalidSubcommand, Some(ContextValue::String(typed))) => {
                return Some(Refused::Command(command_path(&words(args), typed)));
            }
            (ErrorKind::UnknownArgument, _) => {}
            _ => return None,
        }
        let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidArg) else {
            return None;
        };
        let words = words(args);
        let after_dashes = words
            .iter()
            .position(|w| w == "--")
            .is_some_and(|at| word == "--" || words.iter().skip(at + 1).any(|w| w == word));
        Some(Refused::Word {
            // The first word, unless it is a flag (ralph takes none before the command).
            command: words.first().filter(|w| !w.starts_with('-')).cloned(),
            flag: word
                .split_once('=')
                .map_or(word.as_str(), |(f, _)| f)
                .to_owned(),
            after_dashes,
        })
    }

    /// Whether this is `form`.
    fn is(&self, form: Form) -> bool {
        match (self, form) {
            (Refused::Command(typed), Form::Command(name)) => typed == name,
            (
                Refused::Word {
                    command,
                    after_dashes: true,
                    ..
                },
                Form::AfterDashes(name),
            ) => command.as_deref() == Some(name),
            (
                Refused::Word {
                    command,
                    flag,
                    after_dashes: false,
                },
                Form::Flag(name, typed),
            ) => command.as_deref().unwrap_or("") == name && flag == typed,
            _ => false,
        }
    }
}

/// `typed` after the commands clap went down before it refused it, as words: in
/// `ralph tools --root DIR interact`, `tools interact` (a flag's value is no command).
fn command_path(words: &[String], typed: &str) -> String {
    let mut command = Cli::command();
    let mut path = Vec::new();
    for word in words.iter().take_while(|w| *w != typed) {
        if let Some(sub) = command.find_subcommand(word).cloned() {
            path.push(word.as_str());
            command = sub;
        }
    }
    path.push(typed);
    path.join(" ")
}

/// The form of the table `err` is about, and its row.
fn find(err: &clap::Error, args: &[OsString]) -> Option<(Form, &'static Hint)> {
    let refused = Refused::read(err, args)?;
    HINTS.iter().find_map(|hint| {
        (hint.forms.iter().copied())
            .find(|f| refused.is(*f))
            .map(|form| (form, hint))
    })
}

/// How a form is shown in its hint.
fn shown(form: Form) -> String {
    match form {
        Form::Command(name) => format!("`ralph {name}`"),
        Form::Flag("", flag) => format!("`{flag}` before the command"),
        Form::Flag(command, flag) => format!("`ralph {command} {flag}`"),
        Form::AfterDashes(command) => format!("`ralph {command} … -- ARGS`"),
    }
}

/// Refuses the words after `--` of a command the table has a [`Form::AfterDashes`] for
/// that clap accepted: `ralph plan IDEA -- ARGS`, whose idea takes every word after `--`,
/// so the agent's arguments would end up in the idea. The error is
/// clap's own for `ralph run -- ARGS`, and gets the same hint. Taken is `--` with every
/// positional word after it and at least one (`ralph plan -b pi -- -1 as a limit`): the
/// one way to give an idea that starts with `-`, and not the incumbent's form, whose
/// idea comes before `--`.
pub(crate) fn refuse_words_after_dashes(
    command: &mut clap::Command,
    matches: &clap::ArgMatches,
    args: &[OsString],
) -> Result<(), clap::Error> {
    let Some(name) = matches.subcommand_name() else {
        return Ok(());
    };
    let refused = HINTS.iter().any(|h| {
        h.forms
            .iter()
            .any(|f| matches!(f, Form::AfterDashes(n) if *n == name))
    });
    let words = words(args);
    let Some(at) = words.iter().position(|w| w == "--").filter(|_| refused) else {
        return Ok(());
    };
    let after = words.len() - at - 1;
    if after > 0 && positionals_given(command, matches, name) == after {
        return Ok(());
    }
    let word = words.get(at + 1).map_or("--", String::as_str);
    Err(unknown_argument(command, name, word))
}

/// How many positional words clap gave the subcommand `name` of `matches`.
fn positionals_given(command: &clap::Command, matches: &clap::ArgMatches, name: &str) -> usize {
    let (Some(sub), Some(given)) = (
        command.find_subcommand(name),
        matches.subcommand_matches(name),
    ) else {
        return 0;
    };
    (sub.get_positionals())
        .filter_map(|arg| given.try_get_raw(arg.get_id().as_str()).ok().flatten())
        .map(|values| values.len())
        .sum()
}

/// Refuses a flag of the table that clap took as a value: `ralph emit TOPIC --ts`
/// publishes the payload `--ts` otherwise, since a payload may start with `-`, and
/// `ralph emit TOPIC --ts 123 MSG` gets clap's bare "unexpected argument '123'". Given
/// what clap made of `args`, returns the error to report instead, if any: the table's flag
/// (typed before any `--`, after which a payload such as `--ts` is taken as it is), refused
/// as clap refuses a flag it does not know, so that [`add_migration_hint`] adds its hint.
/// Only a command line clap accepted or refused for an unexpected word is looked at: any
/// other refusal (`--help` among them) stands.
pub(crate) fn refuse_flags_taken_as_values(
    command: &mut clap::Command,
    parsed: Result<clap::ArgMatches, clap::Error>,
    args: &[OsString],
) -> Result<clap::ArgMatches, clap::Error> {
    if let Err(err) = &parsed
        && err.kind() != ErrorKind::UnknownArgument
    {
        return parsed;
    }
    let words = words(args);
    let Some((name, rest)) = words.split_first() else {
        return parsed;
    };
    let typed = rest.iter().take_while(|w| *w != "--").find(|word| {
        HINTS.iter().flat_map(|h| h.forms.iter()).any(|form| {
            matches!(*form, Form::Flag(c, flag) if c == name
                && word.strip_prefix(flag).is_some_and(|v| v.is_empty() || v.starts_with('=')))
        })
    });
    match typed {
        Some(word) => Err(unknown_argument(command, name, word)),
        None => parsed,
    }
}

/// clap's error for `word`, which the command `name` does not take.
fn unknown_argument(command: &mut clap::Command, name: &str, word: &str) -> clap::Error {
    command.build();
    let sub = command
        .find_subcommand_mut(name)
        .expect("a command of ralph's");
    let mut err = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(sub);
    err.insert(
        ContextKind::InvalidArg,
        ContextValue::String(word.to_owned()),
    );
    err.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(sub.render_usage()),
    );
    err
}

/// The words of the command line `args` after the program, as text.
fn words(args: &[OsString]) -> Vec<String> {
    (args.iter().skip(1))
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The line after the help that a bare `ralph` prints: ralph-orchestrator ran a loop then.
pub(crate) const BARE_RALPH_NOTE: &str =
    "To start a loop: `ralph run` (a bare `ralph` no longer starts one; see docs/migrating.md)";

#[cfg(test)]
#[path = "migration_hints_tests.rs"]
mod tests;
