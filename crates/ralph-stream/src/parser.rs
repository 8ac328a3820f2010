//! What every agent parser shares: the event callback and text joining.

use crate::event::AgentEvent;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;

/// The callback parsers hand their events to.
pub(crate) type Emit<'e> = dyn FnMut(&AgentEvent<'_>) + 'e;

/// Joins decoded strings with `sep`. One string without escapes stays borrowed from the
/// line; anything else is built in the scratch buffer.
pub(crate) fn text_of<'a>(texts: &[JsonStr<'a>], sep: &str, scratch: &mut Scratch) -> Span<'a> {
    match texts {
        [] => Span::Line(""),
        [one] => one.decode_into(scratch),
        many => {
            let start = scratch.len();
            for (i, text) in many.iter().enumerate() {
                if i > 0 {
                    scratch.push_str(sep);
                }
                if let Span::Line(plain) = text.decode_into(scratch) {
                    scratch.push_str(plain);
                }
            }
            Span::Scratch(start..scratch.len())
        }
    }
}

/// A count from the wire as `u32`, saturating: agents send JSON numbers, and a count no
/// real run reaches must not wrap.
pub(crate) fn saturate(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
