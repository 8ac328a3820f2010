//! The configuration reference, `docs/config.md`, generated from the key table.

use super::key::Section;

/// The configuration reference (`docs/config.md`), generated from [`super::all_keys`].
pub fn reference() -> String {
    let mut out = String::from(REFERENCE_HEADER);
    for section in Section::ALL {
        let keys: Vec<_> = section.keys().collect();
        let heading = match section {
            Section::Top => "Top level".to_owned(),
            other => format!("`{}`", other.path()),
        };
        out.push_str(&format!(
            "\n## {heading}\n\n| Key | Type | Default | What it does |\n|---|---|---|---|\n"
        ));
        for key in keys {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                key.path(),
                key.ty.describe(),
                key.default.describe(),
                key.doc.replace('|', "\\|"),
            ));
        }
    }
    out
}

const REFERENCE_HEADER: &str = "\
# Configuration reference

<!-- Generated from crates/ralph-core/src/config/keys.rs: do not edit by hand.
     Regenerate with `RALPH_BLESS=1 cargo test -p ralph-core --test config_reference`. -->

ralph reads its settings in layers, each overriding the one before key by key: built-in
defaults, the user file (`$XDG_CONFIG_HOME/ralph/config.yml`, else
`~/.config/ralph/config.yml`), the project file (`ralph.yml`; or `-c FILE`, else
`$RALPH_CONFIG`), then the command line (`-b`, `-p`, `-P`, `--max-iterations`,
`--max-runtime`, `--max-cost`, `--completion-promise`). Every key is optional unless
marked required. Unknown keys are errors, except a top-level key starting with `x-`, which
is ignored without a word: it holds YAML anchors for the rest of the file (`x-common:
&common ...`), as ralph-orchestrator allowed. Keys of ralph-orchestrator that ralph does not
implement are reported as errors or warnings, depending on whether ignoring them would
change what the loop does ([migrating.md](migrating.md) gathers what changes for a
ralph-orchestrator project).
`ralph run --dry-run` prints the configuration a run would use, as YAML (so not with
`--output json`, whose lines are run events); `ralph init` writes a `ralph.yml` with every
default.

Two groups of keys travel together across layers: a layer that sets `prompt` or
`prompt_file` replaces both, and a layer that switches `cli.backend` to another backend
drops the lower layers' `command`, `args`, `prompt_mode`, `prompt_flag`, `output_format`
and `pty`. Hats and prices are replaced whole, per hat id and per model.

Once the layers are merged, ralph checks that the workflow fits together. Errors, since
the loop could not work as written: a hat that triggers on the completion promise or on
`task.start` or `task.resume` (ralph's coordinator keeps those), a hat with the id `ralph`
(the coordinator's), a `starting_event` that is the promise, two hats whose trigger
patterns could both take one topic. Warnings, since the loop runs but not as the file reads: a hat without triggers (it
never runs), a `starting_event` no hat triggers on (ralph's coordinator takes the first
iteration; also when a pattern such as `task.*` would take ralph's own `task.start`), a
`default_publishes` that the hat's non-empty `publishes` leaves out, and a required event
that no hat lists in `publishes` (checked when every hat lists its topics), and a
`fallback` list that no `on_rate_limit: failover` reads (`cli`'s, unless `cli` or a hat
without a list of its own fails over; a hat's, unless that hat fails over). `ralph run`,
`--dry-run` and `ralph doctor` show both, with the key's `file:line:column`.
";
