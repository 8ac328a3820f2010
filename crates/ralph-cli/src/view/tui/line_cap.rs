//! A ceiling on one line of the agent's text in the full-screen view.
//!
//! An agent can print megabytes without a newline (a minified bundle, a base64 blob).
//! The view lays out the lines it shows on every frame, so one such line cost the whole
//! line's wrapping each second, and its memory several times over (30 MB of one line
//! took the view to 280 MB). The view keeps the first [`LINE_MAX_BYTES`] of a line and
//! says where it was cut; the run's record and `ralph inspect` keep it whole. The export
//! and the search read the view's text, so the ceiling is set well above the lines a
//! person reads (a long log line, a JSON document on one line) and still far below what
//! costs a frame anything.

/// The most bytes of one line of text the view keeps.
pub(crate) const LINE_MAX_BYTES: usize = 256 * 1024;

/// Put where a line was cut; what follows it, up to the line's end, is dropped.
pub(crate) const CUT_MARK: &str = " … (line cut here: `ralph inspect` shows it whole)";

/// Appends `text` to `kept`, each line of it cut at [`LINE_MAX_BYTES`].
pub(crate) fn append_capped(kept: &mut String, text: &str) {
    for piece in text.split_inclusive('\n') {
        let (body, newline) = match piece.strip_suffix('\n') {
            Some(body) => (body, true),
            None => (piece, false),
        };
        let line_start = kept.rfind('\n').map_or(0, |at| at + 1);
        let line = &kept[line_start..];
        if !line.ends_with(CUT_MARK) {
            let room = LINE_MAX_BYTES.saturating_sub(line.len());
            if body.len() <= room {
                kept.push_str(body);
            } else {
                let cut = body.floor_char_boundary(room);
                kept.push_str(&body[..cut]);
                kept.push_str(CUT_MARK);
            }
        }
        if newline {
            kept.push('\n');
        }
    }
}

#[cfg(test)]
#[path = "line_cap_tests.rs"]
mod tests;
