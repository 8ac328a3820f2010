//! Plain text tables for people (`ralph events`, `ralph runs`): each column as wide as its
//! widest cell, the columns in `right` right-aligned (numbers), the last one unpadded, no
//! trailing spaces.

use super::columns::{columns, pad_left, pad_right};

/// `header` and `rows` as a table, one line each.
pub(crate) fn text_table<const N: usize>(
    header: [&str; N],
    rows: Vec<[String; N]>,
    right: &[usize],
) -> String {
    // Cells quote hat names and topics, which may be CJK: widths in terminal columns.
    let mut widths = header.map(columns);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(columns(cell));
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header.map(str::to_owned)).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else if right.contains(&i) {
                line.push_str(&pad_left(cell, width));
                line.push_str("  ");
            } else {
                line.push_str(&pad_right(cell, width));
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
