//! A skill file's front matter: the YAML between a first line `---` and the next `---`.

use saphyr::{LoadableYamlNode, Scalar, Yaml};

/// What a skill file says about itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub hats: Vec<String>,
    pub backends: Vec<String>,
}

/// The front matter of `text` (none when it has none) and the body after it, or why the
/// front matter could not be read.
pub fn split(text: &str) -> Result<(FrontMatter, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((FrontMatter::default(), text));
    };
    let mut offset = 0;
    let mut end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body_start)) = end else {
        return Err("its front matter has no closing `---` line".to_owned());
    };
    let yaml = &rest[..yaml_end];
    let docs =
        Yaml::load_from_str(yaml).map_err(|e| format!("its front matter is not YAML: {e}"))?;
    let mut front = FrontMatter::default();
    if let Some(doc) = docs.first() {
        if !matches!(doc, Yaml::Mapping(_) | Yaml::Value(Scalar::Null)) {
            return Err("its front matter is not a mapping of keys".to_owned());
        }
        front.name = text_of(doc.as_mapping_get("name"));
        front.description = text_of(doc.as_mapping_get("description"));
        front.hats = list_of(doc.as_mapping_get("hats"));
        front.backends = list_of(doc.as_mapping_get("backends"));
    }
    Ok((front, &rest[body_start..]))
}

fn text_of(value: Option<&Yaml<'_>>) -> Option<String> {
    value
        .and_then(|v| v.as_str())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// A list of strings, or one string as a list of one.
fn list_of(value: Option<&Yaml<'_>>) -> Vec<String> {
    match value {
        Some(Yaml::Sequence(items)) => items.iter().filter_map(|i| text_of(Some(i))).collect(),
        other => text_of(other).into_iter().collect(),
    }
}
