// docs/migrating.md's table "Commands and flags that are not here", read by the unit
// tests of `src/migration_hints.rs` (which check every hint against its row) and by
// tests/migrating_doc.rs (which runs every row's command lines): both `include!` this
// file, so they read the table the same way. (Plain comments: an included file takes no
// inner doc comment.)

/// The rows of the table: (ralph-orchestrator cell, "in ralph" cell).
fn migrating_rows() -> Vec<(&'static str, &'static str)> {
    const DOC: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/migrating.md"
    ));
    let start = DOC
        .find("| ralph-orchestrator | in ralph |")
        .expect("the table of commands");
    DOC[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            (cells[0].trim_start_matches("| "), cells[1])
        })
        .collect()
}
