//! Reading typed values out of a parsed YAML tree.
//!
//! The tree comes from `saphyr`'s marked loader, so every node knows its line and
//! column. The [`Decoder`] walks it one mapping at a time: [`Decoder::section`]
//! sorts a mapping's keys into the ones the schema knows, the upstream keys ralph
//! does not support (reported through [`super::unsupported`]) and unknown ones (an
//! error with a suggestion), and the typed readers turn values into [`Spanned`]
//! values or record an error that names the key, what was expected and what was
//! found. Nothing stops at the first problem: the decoder collects them all.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

use super::describe::{describe, expected, type_hint};
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning, ConfigWarningKind};
use super::origin::{Origin, Spanned};
use super::suggest::closest;
use super::unsupported::{Impact, Unsupported};
use crate::topic::{TopicError, validate_topic};

pub(crate) type Node<'a> = MarkedYaml<'a>;

/// The smallest magnitude YAML integers cannot hold (they are `i64`): a whole number this
/// large is read as a float.
const BEYOND_YAML_INTEGERS: f64 = 9_223_372_036_854_775_808.0;
/// The prefix of a top-level key that only holds YAML anchors for the rest of the file
/// (`x-common: &common ...`, the convention of Docker Compose and others). ralph-orchestrator
/// accepted such keys without a word (it ignored every unknown key), so files written
/// for it use them; ralph ignores them the same way, at the top level only, where they
/// cannot be a misspelt setting.
pub(crate) const EXTENSION_PREFIX: &str = "x-";
/// saphyr's words for a duplicate key, which deserves its own message.
const DUPLICATE_KEY_MESSAGE: &str = "duplicated key in mapping";

/// Parses `text` into at most one document. `Ok(None)` means the file holds no
/// document at all (empty, or only comments).
pub(crate) fn parse_document<'a>(
    text: &'a str,
    file: &Arc<Path>,
) -> Result<Option<Node<'a>>, ConfigErrors> {
    let docs = MarkedYaml::load_from_str(text).map_err(|e| {
        let origin = marker_origin(file, e.marker().line(), e.marker().col());
        let kind = if e.info() == DUPLICATE_KEY_MESSAGE {
            ConfigErrorKind::DuplicateKey {
                key: key_at(text, e.marker().line(), e.marker().col()),
            }
        } else {
            ConfigErrorKind::Syntax {
                message: e.info().to_owned(),
            }
        };
        ConfigErrors::from(ConfigError::new(origin, kind))
    })?;
    let mut docs = docs.into_iter();
    let first = docs.next();
    if let Some(second) = docs.next() {
        return Err(ConfigError::new(
            marker_origin(file, second.span.start.line(), second.span.start.col()),
            ConfigErrorKind::MultipleDocuments {
                count: 2 + docs.count(),
            },
        )
        .into());
    }
    Ok(first.filter(|doc| !matches!(doc.data, YamlData::BadValue | YamlData::Value(Scalar::Null))))
}

/// The key written at `line` (1-based) and `col` (0-based, in characters), read back
/// from the source because saphyr's duplicate-key error does not name it.
fn key_at(text: &str, line: usize, col: usize) -> Option<String> {
    let rest: String = text
        .lines()
        .nth(line.checked_sub(1)?)?
        .chars()
        .skip(col)
        .collect();
    let key = rest.split(':').next()?.trim().trim_matches(['"', '\'']);
    (!key.is_empty()).then(|| key.to_owned())
}

fn marker_origin(file: &Arc<Path>, line: usize, col: usize) -> Origin {
    Origin::File {
        path: Arc::clone(file),
        line,
        // saphyr counts columns from 0; editors and compilers count from 1.
        column: col + 1,
    }
}

/// What a mapping may contain (built from the key table by
/// `keys::Section::schema`).
pub(crate) struct Schema<'s> {
    /// The mapping's dotted path (`cli`, `hats.builder`), empty for the top level.
    pub(crate) path: &'s str,
    /// The keys ralph reads.
    pub(crate) keys: Vec<&'static str>,
    /// Upstream keys ralph knows about but does not implement.
    pub(crate) unsupported: &'static [Unsupported],
    /// The dotted paths of other sections' keys, to suggest
    /// `event_loop.max_iterations` for a `max_iterations` written under `cli`.
    pub(crate) elsewhere: Vec<String>,
}

impl Schema<'_> {
    fn key_path(&self, key: &str) -> String {
        join_path(self.path, key)
    }

    fn place(&self) -> String {
        if self.path.is_empty() {
            "at the top level".to_owned()
        } else {
            format!("in `{}`", self.path)
        }
    }
}

pub(crate) fn join_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// A value in a mapping, with its key's dotted path.
pub(crate) struct Field<'a> {
    /// The dotted path of the key (`event_loop.max_iterations`).
    pub(crate) path: String,
    /// The key node (errors about the key itself point here).
    pub(crate) key: &'a Node<'a>,
    /// The value node.
    pub(crate) value: &'a Node<'a>,
}

/// The known keys of one mapping, taken one by one by the decoder.
pub(crate) struct Section<'a> {
    fields: Vec<Field<'a>>,
}

impl<'a> Section<'a> {
    /// Takes the field for `key`, if present and not null (`key:` with no value means
    /// "not set", as in every YAML-based config).
    pub(crate) fn take(&mut self, key: &str) -> Option<Field<'a>> {
        let i = self
            .fields
            .iter()
            .position(|f| f.path.rsplit('.').next() == Some(key))?;
        let field = self.fields.swap_remove(i);
        (!is_null(field.value)).then_some(field)
    }

    /// Every known key must have been taken: a key the schema lists but the decoder
    /// never reads would be silently ignored, which is the bug this module exists to
    /// prevent.
    pub(crate) fn finish(self) {
        debug_assert!(
            self.fields.is_empty(),
            "keys listed in a schema but never read: {:?}",
            self.fields.iter().map(|f| &f.path).collect::<Vec<_>>()
        );
    }
}

fn is_null(node: &Node<'_>) -> bool {
    matches!(node.data, YamlData::Value(Scalar::Null))
}

/// Walks a parsed file, collecting errors and warnings.
pub(crate) struct Decoder {
    file: Arc<Path>,
    /// The file's text, for quoting a value as written (see [`Decoder::as_written`]).
    text: Arc<str>,
    pub(crate) errors: Vec<ConfigError>,
    pub(crate) warnings: Vec<ConfigWarning>,
    /// The top-level keys ralph reads that the file sets, where each is written.
    pub(crate) top_keys: Vec<(&'static str, Origin)>,
}

impl Decoder {
    pub(crate) fn new(file: Arc<Path>, text: &str) -> Self {
        Decoder {
            file,
            text: Arc::from(text),
            errors: Vec::new(),
            warnings: Vec::new(),
            top_keys: Vec::new(),
        }
    }

    pub(crate) fn origin(&self, node: &Node<'_>) -> Origin {
        marker_origin(&self.file, node.span.start.line(), node.span.start.col())
    }

    /// A whole number as the file writes it, where the parser read it as a float (it
    /// is too large for its integers), or the float's first digits where the text at
    /// the node's span is not such a number.
    fn as_written(&self, node: &Node<'_>, value: f64) -> String {
        let (start, end) = (node.span.start.index(), node.span.end.index());
        // The span counts characters, not bytes.
        let text: String = self.text.chars().skip(start).take(end - start).collect();
        let digits = text.trim().trim_start_matches(['+', '-']);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            text.trim().to_owned()
        } else {
            format!("about {value:.3e}")
        }
    }

    pub(crate) fn error(&mut self, node: &Node<'_>, kind: ConfigErrorKind) {
        let origin = self.origin(node);
        self.errors.push(ConfigError::new(origin, kind));
    }

    pub(crate) fn warn(&mut self, node: &Node<'_>, kind: ConfigWarningKind) {
        let origin = self.origin(node);
        self.warnings.push(ConfigWarning { origin, kind });
    }

    pub(crate) fn wrong_type(&mut self, field_path: &str, node: &Node<'_>, expected: &'static str) {
        let hint = type_hint(node, expected);
        self.error(
            node,
            ConfigErrorKind::WrongType {
                key: field_path.to_owned(),
                expected,
                found: describe(node),
                hint,
            },
        );
    }

    /// The entries of a mapping whose keys are names chosen by the user (hat ids).
    pub(crate) fn entries<'a>(
        &mut self,
        node: &'a Node<'a>,
        path: &str,
    ) -> Option<Vec<(Spanned<String>, &'a Node<'a>)>> {
        let entries = self.keyed_entries(node, path)?;
        Some(
            entries
                .into_iter()
                .map(|(name, key, value)| (Spanned::new(name, self.origin(key)), value))
                .collect(),
        )
    }

    /// A mapping's entries as (key text, key node, value node); non-string keys are
    /// reported and left out.
    fn keyed_entries<'a>(
        &mut self,
        node: &'a Node<'a>,
        path: &str,
    ) -> Option<Vec<(String, &'a Node<'a>, &'a Node<'a>)>> {
        let YamlData::Mapping(map) = &node.data else {
            self.wrong_type(path, node, expected::MAPPING);
            return None;
        };
        let mut out = Vec::with_capacity(map.len());
        for (key, value) in map {
            match &key.data {
                YamlData::Value(Scalar::String(name)) => {
                    out.push((name.to_string(), key, value));
                }
                _ => self.error(
                    key,
                    ConfigErrorKind::NonStringKey {
                        found: describe(key),
                    },
                ),
            }
        }
        Some(out)
    }

    /// Opens a mapping with a fixed set of keys, reporting unknown and unsupported
    /// ones.
    pub(crate) fn section<'a>(
        &mut self,
        node: &'a Node<'a>,
        schema: &Schema<'_>,
    ) -> Option<Section<'a>> {
        if schema.path.is_empty() && !matches!(node.data, YamlData::Mapping(_)) {
            self.error(
                node,
                ConfigErrorKind::NotAMapping {
                    found: describe(node),
                    sections: schema.keys.clone(),
                },
            );
            return None;
        }
        let entries = self.keyed_entries(node, schema.path)?;
        let mut fields = Vec::with_capacity(entries.len());
        for (name, key_node, value) in entries {
            let name = name.as_str();
            if schema.keys.contains(&name) {
                fields.push(Field {
                    path: schema.key_path(name),
                    key: key_node,
                    value,
                });
            } else if let Some(entry) = schema.unsupported.iter().find(|u| u.key == name) {
                self.unsupported(key_node, value, schema, entry);
            } else if schema.path.is_empty() && name.starts_with(EXTENSION_PREFIX) {
                // An anchor holder: its aliases were resolved where they are used.
            } else if name == "<<" {
                self.error(
                    key_node,
                    ConfigErrorKind::MergeKey {
                        place: schema.place(),
                    },
                );
            } else {
                self.error(
                    key_node,
                    ConfigErrorKind::UnknownKey {
                        key: name.to_owned(),
                        place: schema.place(),
                        suggestion: suggest_key(name, schema),
                        expected: schema.keys.clone(),
                    },
                );
            }
        }
        Some(Section { fields })
    }

    fn unsupported(
        &mut self,
        key: &Node<'_>,
        value: &Node<'_>,
        schema: &Schema<'_>,
        entry: &Unsupported,
    ) {
        let path = schema.key_path(entry.key);
        match (entry.impact)(value) {
            Impact::None => {}
            Impact::Warning => self.warn(
                key,
                ConfigWarningKind::Unsupported {
                    key: path,
                    why: entry.why,
                },
            ),
            Impact::Error => self.error(
                key,
                ConfigErrorKind::Unsupported {
                    key: path,
                    why: entry.why,
                },
            ),
        }
    }

    pub(crate) fn string(&mut self, field: &Field<'_>) -> Option<Spanned<String>> {
        self.string_node(&field.path, field.value)
    }

    pub(crate) fn string_node(&mut self, path: &str, node: &Node<'_>) -> Option<Spanned<String>> {
        match &node.data {
            YamlData::Value(Scalar::String(s)) => {
                Some(Spanned::new(s.to_string(), self.origin(node)))
            }
            _ => {
                self.wrong_type(path, node, expected::STRING);
                None
            }
        }
    }

    /// A string that must not be empty; `why` says what an empty one would break.
    pub(crate) fn nonempty_string(
        &mut self,
        field: &Field<'_>,
        why: &'static str,
    ) -> Option<Spanned<String>> {
        let s = self.string(field)?;
        if s.value.trim().is_empty() {
            self.error(
                field.value,
                ConfigErrorKind::Empty {
                    key: field.path.clone(),
                    why,
                },
            );
            return None;
        }
        Some(s)
    }

    pub(crate) fn path(
        &mut self,
        field: &Field<'_>,
        why: &'static str,
    ) -> Option<Spanned<PathBuf>> {
        self.nonempty_string(field, why)
            .map(|s| s.map(PathBuf::from))
    }

    /// A whole number in `min..=max`.
    pub(crate) fn uint(&mut self, field: &Field<'_>, min: u64, max: u64) -> Option<Spanned<u64>> {
        let n = match field.value.data {
            YamlData::Value(Scalar::Integer(n)) => n,
            // A whole number too large for the YAML parser's integers arrives as a float:
            // it is out of range, not a fraction to drop.
            YamlData::Value(Scalar::FloatingPoint(f))
                if f.fract() == 0.0 && f.abs() >= BEYOND_YAML_INTEGERS =>
            {
                self.error(
                    field.value,
                    ConfigErrorKind::OutOfRange {
                        key: field.path.clone(),
                        requirement: range_requirement(min, max),
                        found: self.as_written(field.value, f.into_inner()),
                    },
                );
                return None;
            }
            _ => {
                self.wrong_type(&field.path, field.value, expected::WHOLE_NUMBER);
                return None;
            }
        };
        match u64::try_from(n) {
            Ok(n) if (min..=max).contains(&n) => Some(Spanned::new(n, self.origin(field.value))),
            _ => {
                self.error(
                    field.value,
                    ConfigErrorKind::OutOfRange {
                        key: field.path.clone(),
                        requirement: range_requirement(min, max),
                        found: n.to_string(),
                    },
                );
                None
            }
        }
    }

    /// A number greater than zero (a whole number is fine).
    pub(crate) fn positive_number(&mut self, field: &Field<'_>) -> Option<Spanned<f64>> {
        self.number(field, |n| n > 0.0, "a number greater than 0")
    }

    /// A number that is zero or more (a whole number is fine).
    pub(crate) fn non_negative_number(&mut self, field: &Field<'_>) -> Option<Spanned<f64>> {
        self.number(field, |n| n >= 0.0, "a number of 0 or more")
    }

    /// A finite number that passes `accept`; `requirement` says which ones do.
    fn number(
        &mut self,
        field: &Field<'_>,
        accept: fn(f64) -> bool,
        requirement: &str,
    ) -> Option<Spanned<f64>> {
        let n = match field.value.data {
            YamlData::Value(Scalar::Integer(n)) => n as f64,
            YamlData::Value(Scalar::FloatingPoint(f)) => f.into_inner(),
            _ => {
                self.wrong_type(&field.path, field.value, expected::NUMBER);
                return None;
            }
        };
        if !(n.is_finite() && accept(n)) {
            self.error(
                field.value,
                ConfigErrorKind::OutOfRange {
                    key: field.path.clone(),
                    requirement: requirement.to_owned(),
                    found: n.to_string(),
                },
            );
            return None;
        }
        Some(Spanned::new(n, self.origin(field.value)))
    }

    pub(crate) fn boolean(&mut self, field: &Field<'_>) -> Option<Spanned<bool>> {
        match field.value.data {
            YamlData::Value(Scalar::Boolean(b)) => Some(Spanned::new(b, self.origin(field.value))),
            _ => {
                self.wrong_type(&field.path, field.value, expected::BOOL);
                None
            }
        }
    }

    /// A list of strings, each with its own origin.
    pub(crate) fn strings(&mut self, field: &Field<'_>) -> Option<Spanned<Vec<Spanned<String>>>> {
        let YamlData::Sequence(items) = &field.value.data else {
            self.wrong_type(&field.path, field.value, expected::STRING_LIST);
            return None;
        };
        let errors_before = self.errors.len();
        let values: Vec<_> = items
            .iter()
            .filter_map(|item| self.string_node(&field.path, item))
            .collect();
        (self.errors.len() == errors_before).then(|| Spanned::new(values, self.origin(field.value)))
    }

    /// A list of plain strings (command-line arguments, guardrails).
    pub(crate) fn plain_strings(&mut self, field: &Field<'_>) -> Option<Spanned<Vec<String>>> {
        self.strings(field)
            .map(|list| list.map(|items| items.into_iter().map(|s| s.value).collect()))
    }

    pub(crate) fn topic(&mut self, field: &Field<'_>) -> Option<Spanned<String>> {
        let topic = self.string(field)?;
        self.check_topic(&field.path, topic, validate_topic)
    }

    /// A list of distinct, valid topics.
    pub(crate) fn topics(&mut self, field: &Field<'_>) -> Option<Spanned<Vec<Spanned<String>>>> {
        self.topics_with(field, validate_topic)
    }

    /// A list of distinct items, each valid by `validate` (topics, or trigger patterns).
    pub(crate) fn topics_with(
        &mut self,
        field: &Field<'_>,
        validate: fn(&str) -> Result<(), TopicError>,
    ) -> Option<Spanned<Vec<Spanned<String>>>> {
        let list = self.strings(field)?;
        let errors_before = self.errors.len();
        let mut topics: Vec<Spanned<String>> = Vec::with_capacity(list.value.len());
        for topic in list.value {
            let Some(topic) = self.check_topic(&field.path, topic, validate) else {
                continue;
            };
            if topics.iter().any(|t| t.value == topic.value) {
                self.errors.push(ConfigError::new(
                    topic.origin,
                    ConfigErrorKind::Duplicate {
                        key: field.path.clone(),
                        value: topic.value,
                    },
                ));
                continue;
            }
            topics.push(topic);
        }
        (self.errors.len() == errors_before).then(|| Spanned::new(topics, list.origin))
    }

    fn check_topic(
        &mut self,
        path: &str,
        topic: Spanned<String>,
        validate: fn(&str) -> Result<(), TopicError>,
    ) -> Option<Spanned<String>> {
        match validate(&topic.value) {
            Ok(()) => Some(topic),
            Err(reason) => {
                self.errors.push(ConfigError::new(
                    topic.origin,
                    ConfigErrorKind::InvalidTopic {
                        key: path.to_owned(),
                        topic: topic.value,
                        reason,
                    },
                ));
                None
            }
        }
    }
}

/// A close key of the same mapping, else the same key in another section.
fn suggest_key(name: &str, schema: &Schema<'_>) -> Option<String> {
    closest(name, schema.keys.iter().copied())
        .map(str::to_owned)
        .or_else(|| {
            schema
                .elsewhere
                .iter()
                .find(|path| path.rsplit('.').next() == Some(name))
                .cloned()
        })
}

/// What a whole number in `min..=max` is told when it is not.
pub(crate) fn range_requirement(min: u64, max: u64) -> String {
    if max == u64::MAX {
        format!("at least {min}")
    } else {
        format!("between {min} and {max}")
    }
}
