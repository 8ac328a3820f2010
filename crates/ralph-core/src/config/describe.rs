//! How YAML values are shown in messages: "expects X, found Y", and the hint that
//! goes with the most common slips.

use std::borrow::Cow;

use saphyr::{MarkedYaml as Node, Scalar, YamlData};

/// Words used in "expects X, found Y".
pub(crate) mod expected {
    pub(crate) const STRING: &str = "a string";
    pub(crate) const WHOLE_NUMBER: &str = "a whole number";
    pub(crate) const NUMBER: &str = "a number";
    pub(crate) const BOOL: &str = "`true` or `false`";
    pub(crate) const STRING_LIST: &str = "a list of strings";
    pub(crate) const MAPPING: &str = "a mapping";
    pub(crate) const COMMAND: &str =
        "a command (a string, or a list of the program and its arguments)";
    pub(crate) const GATE_LIST: &str = "a list of gates (each a mapping with `name` and `run`)";
}

/// How a node looks, for "found …" in messages.
pub(crate) fn describe(node: &Node<'_>) -> String {
    match &node.data {
        YamlData::Value(Scalar::String(s)) => format!("a string ({})", quote(s)),
        YamlData::Value(Scalar::Integer(n)) => format!("a number ({n})"),
        YamlData::Value(Scalar::FloatingPoint(f)) => format!("a number ({f})"),
        YamlData::Value(Scalar::Boolean(b)) => format!("a boolean ({b})"),
        YamlData::Value(Scalar::Null) => "nothing (null)".to_owned(),
        YamlData::Sequence(_) => "a list".to_owned(),
        YamlData::Mapping(_) => "a mapping".to_owned(),
        YamlData::Tagged(tag, _) => format!("a value tagged `{tag}` (tags are not supported)"),
        YamlData::Representation(raw, _, _) => format!("`{raw}`"),
        YamlData::Alias(_) | YamlData::BadValue => "an invalid value".to_owned(),
    }
}

/// Strings in messages: quoted, and cut short when long so a pasted prompt does not
/// flood the terminal.
fn quote(s: &str) -> String {
    const MAX_SHOWN_CHARS: usize = 40;
    let shown: Cow<'_, str> = if s.chars().count() > MAX_SHOWN_CHARS {
        Cow::Owned(format!(
            "{}…",
            s.chars().take(MAX_SHOWN_CHARS).collect::<String>()
        ))
    } else {
        Cow::Borrowed(s)
    };
    format!("{shown:?}")
}

/// A hint for the common slips: a quoted number, an unquoted number where text is
/// wanted, a single value where a list is wanted.
pub(crate) fn type_hint(node: &Node<'_>, expected: &str) -> Option<&'static str> {
    match (&node.data, expected) {
        (YamlData::Value(Scalar::String(s)), expected::WHOLE_NUMBER | expected::NUMBER)
            if s.trim().parse::<f64>().is_ok() =>
        {
            Some("remove the quotes")
        }
        (YamlData::Value(Scalar::String(s)), expected::BOOL)
            if matches!(s.as_ref(), "yes" | "no" | "on" | "off" | "True" | "False") =>
        {
            Some("write `true` or `false`")
        }
        (
            YamlData::Value(Scalar::Integer(_) | Scalar::FloatingPoint(_) | Scalar::Boolean(_)),
            expected::STRING,
        ) => Some("put it in quotes"),
        (YamlData::Value(_), expected::STRING_LIST) => Some("write a list, such as `[value]`"),
        (YamlData::Value(Scalar::FloatingPoint(_)), expected::WHOLE_NUMBER) => {
            Some("drop the fraction")
        }
        _ => None,
    }
}
