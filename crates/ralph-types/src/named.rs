//! The closed sets named by string share their error lists and their serde: a value is written as its `name()` and read
//! back through its `FromStr`, so the names exist once, in the type's own table, and an
//! unknown name is reported with the same message as everywhere else.

/// `names` as an error message lists them: `a, b, c`.
pub(crate) fn list<const N: usize>(names: [&str; N]) -> String {
    names.join(", ")
}

/// Implements `Serialize` (as `name()`) and `Deserialize` (through `FromStr`) for `$t`.
macro_rules! serde_by_name {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::named::ByName::<$t>::new())
            }
        }
    };
}
pub(crate) use serde_by_name;

/// The visitor behind [`serde_by_name`].
pub(crate) struct ByName<T>(std::marker::PhantomData<T>);

impl<T> ByName<T> {
    pub(crate) fn new() -> Self {
        ByName(std::marker::PhantomData)
    }
}

impl<T> serde::de::Visitor<'_> for ByName<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<T, E> {
        name.parse().map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use crate::{BackendKind, PromptMode, StreamFormat};

    #[test]
    fn values_are_written_and_read_by_their_names() {
        let written =
            serde_json::to_string(&(BackendKind::Opencode, StreamFormat::Text, PromptMode::Stdin))
                .unwrap();
        assert_eq!(written, r#"["opencode","text","stdin"]"#);
        let read: (BackendKind, StreamFormat, PromptMode) =
            serde_json::from_str(r#"["opencode","text","stdin"]"#).unwrap();
        assert_eq!(
            read,
            (BackendKind::Opencode, StreamFormat::Text, PromptMode::Stdin)
        );
        // An escaped name is the same name.
        let escaped: BackendKind = serde_json::from_str(r#""\u0070i""#).unwrap();
        assert_eq!(escaped, BackendKind::Pi);
    }

    #[test]
    fn an_unknown_name_is_reported_with_every_known_one() {
        let error = serde_json::from_str::<StreamFormat>(r#""json""#).unwrap_err();
        assert!(
            error.to_string().starts_with(
                "unknown stream format `json` (expected one of: pi, claude, codex, gemini, \
                 opencode, copilot, text)"
            ),
            "{error}"
        );
    }
}
