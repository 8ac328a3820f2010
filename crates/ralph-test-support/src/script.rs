//! A script: named scenarios (each a list of turns), the routes that pick a scenario from a
//! request's prompt, and the default. Loaded from JSON or YAML (format in the crate README) or
//! built in Rust. Loading validates every scenario name, so a typo fails at start-up rather than
//! as a puzzling agent run.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::builtin::Builtin;
use crate::error::MockError;
use crate::turn::Turn;

/// The scenario name a bare list of turns gets.
pub const MAIN_SCENARIO: &str = "main";

/// The text side requests (requests that offer no tools) get unless the script says otherwise.
pub const DEFAULT_SIDE_TEXT: &str = "Mock side answer.";

/// Where a script came from, for error messages.
const INLINE_ORIGIN: &str = "<inline>";

/// Scenarios, routes and a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The scenario used when no marker, route or model id picks one. `None`: such requests get
    /// a text answer that says no scenario matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Scenarios by name; a name here shadows a built-in one.
    #[serde(default)]
    pub scenarios: BTreeMap<String, Vec<Turn>>,
    /// Checked in order against each user prompt, newest prompt first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<Route>,
    /// The answer to side requests (requests that offer no tools, e.g. title generation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_text: Option<String>,
}

/// Picks `scenario` for a prompt that contains `contains`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// A substring of the user prompt (case-sensitive), e.g. `You are the planner` or
    /// `[[iteration:2]]`.
    pub contains: String,
    /// The scenario to play.
    pub scenario: String,
}

impl Default for Script {
    /// Only the built-in scenarios, with `tool` as the default (like the pi mock of record).
    fn default() -> Self {
        Self::builtin(Builtin::Tool)
    }
}

impl Script {
    /// Only the built-in scenarios, with `default` as the default.
    pub fn builtin(default: Builtin) -> Self {
        Self {
            default: Some(default.name().to_owned()),
            scenarios: BTreeMap::new(),
            routes: Vec::new(),
            side_text: None,
        }
    }

    /// One scenario named [`MAIN_SCENARIO`], which is also the default.
    pub fn from_turns(turns: Vec<Turn>) -> Self {
        Self {
            default: Some(MAIN_SCENARIO.to_owned()),
            scenarios: BTreeMap::from([(MAIN_SCENARIO.to_owned(), turns)]),
            routes: Vec::new(),
            side_text: None,
        }
    }

    /// Adds (or replaces) a scenario.
    pub fn with_scenario(mut self, name: impl Into<String>, turns: Vec<Turn>) -> Self {
        self.scenarios.insert(name.into(), turns);
        self
    }

    /// Adds a route.
    pub fn with_route(mut self, contains: impl Into<String>, scenario: impl Into<String>) -> Self {
        self.routes.push(Route {
            contains: contains.into(),
            scenario: scenario.into(),
        });
        self
    }

    /// Reads a `.json`, `.yaml` or `.yml` script file and validates it.
    pub fn load(path: &Path) -> Result<Self, MockError> {
        let text = std::fs::read_to_string(path).map_err(|source| MockError::ReadScript {
            path: path.to_owned(),
            source,
        })?;
        let origin = path.display().to_string();
        match path.extension().and_then(|ext| ext.to_str()) {
            Some("json") => Self::parse_json_from(&text, &origin),
            Some("yaml" | "yml") => Self::parse_yaml_from(&text, &origin),
            _ => Err(MockError::ScriptFormat {
                path: path.to_owned(),
            }),
        }
    }

    /// Parses and validates a JSON script.
    pub fn parse_json(text: &str) -> Result<Self, MockError> {
        Self::parse_json_from(text, INLINE_ORIGIN)
    }

    /// Parses and validates a YAML script.
    pub fn parse_yaml(text: &str) -> Result<Self, MockError> {
        Self::parse_yaml_from(text, INLINE_ORIGIN)
    }

    fn parse_json_from(text: &str, origin: &str) -> Result<Self, MockError> {
        let file: ScriptFile = serde_json::from_str(text).map_err(|err| MockError::ParseJson {
            origin: origin.to_owned(),
            message: err.to_string(),
        })?;
        file.0.validated(origin)
    }

    fn parse_yaml_from(text: &str, origin: &str) -> Result<Self, MockError> {
        let file: ScriptFile =
            serde_saphyr::from_str(text).map_err(|err| MockError::ParseYaml {
                origin: origin.to_owned(),
                message: err.to_string(),
            })?;
        file.0.validated(origin)
    }

    /// Checks that every name refers to a scenario and that no scenario is empty.
    pub fn validate(&self) -> Result<(), MockError> {
        self.clone().validated(INLINE_ORIGIN).map(drop)
    }

    fn validated(self, origin: &str) -> Result<Self, MockError> {
        for (name, turns) in &self.scenarios {
            if turns.is_empty() {
                return Err(MockError::EmptyScenario {
                    origin: origin.to_owned(),
                    name: name.clone(),
                });
            }
        }
        let named = self
            .default
            .iter()
            .map(|name| ("default".to_owned(), name))
            .chain(
                self.routes
                    .iter()
                    .enumerate()
                    .map(|(index, route)| (format!("routes[{index}]"), &route.scenario)),
            );
        for (what, name) in named {
            if !self.has_scenario(name) {
                return Err(MockError::UnknownScenario {
                    origin: origin.to_owned(),
                    what,
                    name: name.clone(),
                    builtins: Builtin::names().join(", "),
                });
            }
        }
        Ok(self)
    }

    /// Whether `name` is defined here or built in.
    pub fn has_scenario(&self, name: &str) -> bool {
        self.scenarios.contains_key(name) || Builtin::from_name(name).is_some()
    }

    /// The side-request answer.
    pub fn side_text(&self) -> &str {
        self.side_text.as_deref().unwrap_or(DEFAULT_SIDE_TEXT)
    }
}

/// A script file: either a bare list of turns or a full [`Script`] object. Deserialized by hand
/// so that each form reports its own errors with line numbers (an untagged enum would only say
/// "did not match any variant").
struct ScriptFile(Script);

impl<'de> Deserialize<'de> for ScriptFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScriptFileVisitor)
    }
}

struct ScriptFileVisitor;

impl<'de> Visitor<'de> for ScriptFileVisitor {
    type Value = ScriptFile;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a list of turns, or an object with `scenarios`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let turns = Vec::<Turn>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(ScriptFile(Script::from_turns(turns)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Script::deserialize(de::value::MapAccessDeserializer::new(map)).map(ScriptFile)
    }
}
