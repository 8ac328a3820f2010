//! Plain text tables for people (`ralph events`, `ralph runs`): each column as wide as its
//! widest cell, the columns in `right` right-aligned (numbers), the last one unpadded, no
//! trailing spaces.

/// `header` and `rows` as a table, one line each.
pub(crate) fn text_table<const N: usize>(
    header: [&str; N],
    rows: Vec<[String; N]>,
    right: &[usize],
) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header.map(str::to_owned)).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else if right.contains(&i) {
                line.push_str(&format!("{cell:>width$}  "));
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
