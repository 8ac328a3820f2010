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
#[path = "named_tests.rs"]
mod tests;
