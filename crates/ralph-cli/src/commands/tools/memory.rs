//! `ralph tools memory`: add, list, show, delete, search and prime the memories in
//! `.ralph/agent/memories.md` (ralph-core's `memory` module does the work).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::time::SystemTime;

use ralph_core::memory::file::{MAX_MEMORIES_FILE_BYTES, MAX_MEMORIES_REPAIR_BYTES};
use ralph_core::memory::parse::read_entry;
use ralph_core::memory::{
    Damaged, Memory, MemoryFile, MemoryType, Parsed, Prime, date, outline, prime, render,
};
use ralph_core::visible::{visible, visible_line};

use super::{Out, ToolError, workspace};
use crate::cli_tools_memory::{
    MemoryArgs, MemoryCommand, MemoryFormat, MemoryListArgs, MemoryPrimeArgs, MemorySearchArgs,
};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;

/// How many matches `search` shows without `--all`.
const SEARCH_SHOWN: usize = 10;
/// The most characters of a memory's text in a table row.
const TABLE_CONTENT_CHARS: usize = 60;
/// The widths of the type and day columns (`decision`, `2026-11-26`).
const TYPE_WIDTH: usize = 8;
const DAY_WIDTH: usize = 10;

pub(super) fn run(args: MemoryArgs) -> Result<CommandOutcome, CliError> {
    let file = MemoryFile::in_workspace(&workspace(&args.options)?);
    match args.command {
        MemoryCommand::Add(a) => add(
            &file,
            &a.content,
            a.memory_type,
            a.tags.as_deref(),
            a.format,
        ),
        MemoryCommand::List(a) => list(&file, &a),
        MemoryCommand::Show(a) => {
            // One memory: found in the outline, only its own text read.
            let text = file
                .read_shared()
                .map_err(|e| CliError::io("read", file.path(), e))?;
            let outline = outline(&text);
            warn_damaged(&file, &outline.damaged);
            let slot = outline
                .find(a.id.trim())
                .ok_or_else(|| not_found(&file, &a.id))?;
            let memory = &read_entry(&text, slot);
            let mut out = Out::stdout();
            match a.format {
                MemoryFormat::Json => out.json(memory)?,
                MemoryFormat::Markdown => out.text(&render::markdown([memory]))?,
                MemoryFormat::Quiet => out.text(&format!("{}\n", memory.id))?,
                MemoryFormat::Table => out.text(&details(memory))?,
            }
            out.finish()
        }
        MemoryCommand::Delete(a) => {
            let deleted = file
                .delete(&a.id)
                .map_err(|e| CliError::io("change", file.path(), e))?;
            let Some(memory) = deleted else {
                return Err(not_found(&file, &a.id));
            };
            let mut out = Out::stdout();
            out.text(&format!("Memory deleted: {}\n", memory.id))?;
            out.finish()
        }
        MemoryCommand::Search(a) => search(&file, &a),
        MemoryCommand::Prime(a) => prime_command(&file, &a),
        MemoryCommand::Init(a) => {
            use ralph_core::memory::file::Init;
            let done = file
                .init(a.force)
                .map_err(|e| CliError::io("write", file.path(), e))?;
            let verb = match done {
                Init::Exists => return Err(ToolError::MemoriesExist(file.path().to_owned()).into()),
                Init::Created => "Created",
                Init::Replaced => "Replaced",
            };
            let mut out = Out::stdout();
            out.text(&format!("{verb} {}\n", file.path().display()))?;
            out.finish()
        }
    }
}

/// Reads the file, saying on stderr which entries could not be read.
fn read(file: &MemoryFile) -> Result<Parsed, CliError> {
    let (_, parsed) = file
        .read()
        .map_err(|e| CliError::io("read", file.path(), e))?;
    warn_damaged(file, &parsed.damaged);
    Ok(parsed)
}

/// Says on stderr which entries could not be read.
fn warn_damaged(file: &MemoryFile, damaged: &[Damaged]) {
    for damaged in damaged {
        diagnostic(format_args!(
            "warning: `{}` line {}: {}; it is left out until someone repairs it (ralph keeps \
             its lines in the file)",
            file.path().display(),
            damaged.line,
            damaged.why
        ));
    }
}

fn not_found(file: &MemoryFile, id: &str) -> CliError {
    ToolError::MemoryNotFound {
        id: id.to_owned(),
        path: file.path().to_owned(),
    }
    .into()
}

/// The tags of `--tags`, refusing what the file's comment cannot hold, and control
/// characters (a line break, an escape), which no tag needs and a terminal would act on.
fn tags(text: Option<&str>) -> Result<Vec<String>, CliError> {
    let tags = ralph_core::memory::split_tags(text.unwrap_or(""));
    if let Some(bad) = tags.iter().find(|t| {
        t.contains(['|', '<', '>']) || t.contains("-->") || t.chars().any(char::is_control)
    }) {
        return Err(ToolError::BadTag(bad.clone()).into());
    }
    Ok(tags)
}

fn add(
    file: &MemoryFile,
    content: &str,
    memory_type: MemoryType,
    tag_text: Option<&str>,
    format: MemoryFormat,
) -> Result<CommandOutcome, CliError> {
    if render::content_lines(content).next().is_none() {
        return Err(ToolError::EmptyMemory.into());
    }
    let tags = tags(tag_text)?;
    let memory = file
        .add(memory_type, content, tags, SystemTime::now())
        .map_err(|e| CliError::io("change", file.path(), e))?;
    let mut out = Out::stdout();
    match format {
        MemoryFormat::Json => out.json(&memory)?,
        MemoryFormat::Quiet => out.text(&format!("{}\n", memory.id))?,
        MemoryFormat::Table | MemoryFormat::Markdown => {
            out.text(&format!("Memory stored: {}\n", memory.id))?;
        }
    }
    out.finish()
}

fn list(file: &MemoryFile, args: &MemoryListArgs) -> Result<CommandOutcome, CliError> {
    // Past the limit too: a file that outgrew it is made smaller by choosing from this
    // list what to delete.
    let (text, parsed) = file
        .read_within(MAX_MEMORIES_REPAIR_BYTES)
        .map_err(|e| CliError::io("read", file.path(), e))?;
    warn_damaged(file, &parsed.damaged);
    if text.len() as u64 > MAX_MEMORIES_FILE_BYTES {
        diagnostic(format_args!(
            "warning: `{}` is {} bytes, over its {MAX_MEMORIES_FILE_BYTES}-byte limit: \
             prompts go without memories and `add` is refused until `ralph tools memory \
             delete <id>` makes it smaller",
            file.path().display(),
            text.len()
        ));
    }
    let mut memories: Vec<&Memory> = parsed
        .memories()
        .filter(|m| args.memory_type.is_none_or(|t| m.memory_type == t))
        .collect();
    if let Some(last) = args.last {
        memories.drain(..memories.len().saturating_sub(last));
    }
    let mut out = Out::stdout();
    if memories.is_empty() && args.format == MemoryFormat::Table {
        out.text(
            "No memories yet. Add one: ralph tools memory add \"<a line or two>\" -t pattern \
             --tags a,b\n",
        )?;
        return out.finish();
    }
    print_list(&mut out, &memories, args.format)?;
    out.finish()
}

fn search(file: &MemoryFile, args: &MemorySearchArgs) -> Result<CommandOutcome, CliError> {
    let parsed = read(file)?;
    let tags = tags(args.tags.as_deref())?;
    let total = parsed.entries.len();
    let matches: Vec<&Memory> = parsed
        .memories()
        .filter(|m| args.query.as_deref().is_none_or(|q| m.matches(q)))
        .filter(|m| args.memory_type.is_none_or(|t| m.memory_type == t))
        .filter(|m| tags.is_empty() || m.has_any_tag(&tags))
        .collect();
    let mut out = Out::stdout();
    if args.format != MemoryFormat::Table {
        print_list(&mut out, &matches, args.format)?;
        return out.finish();
    }
    if matches.is_empty() {
        out.text(&format!(
            "No memory matches, of {total}. `ralph tools memory list` shows them all.\n"
        ))?;
        return out.finish();
    }
    let shown = if args.all {
        matches.len()
    } else {
        matches.len().min(SEARCH_SHOWN)
    };
    if let Some(query) = &args.query {
        out.text(&format!(
            "Search results for \"{query}\" ({} of {total} memories)\n\n",
            matches.len()
        ))?;
    }
    print_list(&mut out, &matches[..shown], MemoryFormat::Table)?;
    if shown < matches.len() {
        out.text(&format!(
            "\nShowing {shown} of {} matches: --all shows every one.\n",
            matches.len()
        ))?;
    }
    out.finish()
}

fn prime_command(file: &MemoryFile, args: &MemoryPrimeArgs) -> Result<CommandOutcome, CliError> {
    let parsed = read(file)?;
    let tags = tags(args.tags.as_deref())?;
    let ranked = prime(
        parsed.memories(),
        &Prime {
            budget_tokens: args.budget.filter(|b| *b > 0),
            recent_days: args.recent,
            types: &args.types,
            tags: &tags,
            prefer_tags: &[],
            today: date::day_number(SystemTime::now()),
        },
    );
    let mut out = Out::stdout();
    match args.format {
        MemoryFormat::Json => {
            let chosen: Vec<&Memory> = ranked
                .ids
                .iter()
                .filter_map(|id| parsed.find(id).map(|e| &e.memory))
                .collect();
            out.json(&chosen)?;
        }
        MemoryFormat::Quiet => {
            for id in &ranked.ids {
                out.text(&format!("{id}\n"))?;
            }
        }
        MemoryFormat::Markdown | MemoryFormat::Table => out.text(&ranked.text)?,
    }
    out.finish()
}

fn print_list(out: &mut Out, memories: &[&Memory], format: MemoryFormat) -> Result<(), CliError> {
    match format {
        MemoryFormat::Json => out.json(memories),
        MemoryFormat::Markdown => out.text(&render::markdown(memories.iter().copied())),
        MemoryFormat::Quiet => {
            let mut text = String::new();
            for m in memories {
                let _ = writeln!(text, "{}", m.id);
            }
            out.text(&text)
        }
        MemoryFormat::Table => out.text(&table(memories)),
    }
}

/// One row per memory: id, type, day, tags, the start of its text. Agents write the
/// file, so a control character in any of them is shown as its escape (`\u{1b}`), as
/// `ralph tools task list` does; `--format json` and `markdown` keep the real text.
fn table(memories: &[&Memory]) -> String {
    let ids: Vec<Cow<'_, str>> = memories.iter().map(|m| visible_line(&m.id)).collect();
    let id_width = super::column_width(&ids, "ID");
    let tags: Vec<String> = memories
        .iter()
        .map(|m| visible_line(&m.tags.join(", ")).into_owned())
        .collect();
    let tag_width = super::column_width(&tags, "TAGS");
    let mut text = String::with_capacity((memories.len() + 1) * (id_width + tag_width + 90));
    let cell = |text: &mut String, value: &str, width: usize| {
        text.push_str(value);
        let pad = width.saturating_sub(value.chars().count()) + 2;
        text.extend(std::iter::repeat_n(' ', pad));
    };
    cell(&mut text, "ID", id_width);
    cell(&mut text, "TYPE", TYPE_WIDTH);
    cell(&mut text, "CREATED", DAY_WIDTH);
    cell(&mut text, "TAGS", tag_width);
    text.push_str("CONTENT\n");
    for ((m, id), tags) in memories.iter().zip(&ids).zip(&tags) {
        cell(&mut text, id, id_width);
        cell(&mut text, m.memory_type.name(), TYPE_WIDTH);
        cell(&mut text, &visible_line(&m.created), DAY_WIDTH);
        cell(&mut text, tags, tag_width);
        text.push_str(&shorten(&m.content));
        text.push('\n');
    }
    text
}

/// The first line of `text`, cut to [`TABLE_CONTENT_CHARS`] characters, then escaped
/// (see [`table`]): cut after, an escape could lose its end.
fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let more = text.lines().nth(1).is_some();
    if line.chars().count() <= TABLE_CONTENT_CHARS && !more {
        return visible_line(line).into_owned();
    }
    let mut cut: String = line.chars().take(TABLE_CONTENT_CHARS - 1).collect();
    cut.push('…');
    visible_line(&cut).into_owned()
}

/// One memory for people, its control characters shown as escapes (see [`table`]); the
/// text keeps its line breaks.
fn details(m: &Memory) -> String {
    format!(
        "ID:       {}\nType:     {}\nCreated:  {}\nTags:     {}\n\n{}\n",
        visible_line(&m.id),
        m.memory_type.name(),
        if m.created.is_empty() {
            Cow::Borrowed("-")
        } else {
            visible_line(&m.created)
        },
        visible_line(&m.tags.join(", ")),
        visible(&m.content)
    )
}
