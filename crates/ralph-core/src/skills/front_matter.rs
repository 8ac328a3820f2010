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
        front.name = text_of(doc, "name")?;
        front.description = text_of(doc, "description")?;
        front.hats = list_of(doc, "hats")?;
        front.backends = list_of(doc, "backends")?;
    }
    Ok((front, &rest[body_start..]))
}

/// The text of `key`: `None` when it is absent, null or blank; an error naming the key
/// when it is not text (a typo must not go unnoticed: `name: [a, b]` would otherwise
/// fall back to the file's name).
fn text_of(doc: &Yaml<'_>, key: &str) -> Result<Option<String>, String> {
    match doc.as_mapping_get(key) {
        None | Some(Yaml::Value(Scalar::Null)) => Ok(None),
        Some(value) => match value.as_str() {
            Some(text) => Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty())),
            None => Err(format!("its `{key}` is {}, not text", found(value))),
        },
    }
}

/// The names `key` lists (one name is a list of one); empty when it is absent or null.
/// Any other value is an error: an empty list means "everyone", so a `hats: 5` taken as
/// no restriction would show a skill meant for some hats to all of them.
fn list_of(doc: &Yaml<'_>, key: &str) -> Result<Vec<String>, String> {
    let name = |item: &Yaml<'_>, at: &str| match item.as_str().map(str::trim) {
        Some(name) if !name.is_empty() => Ok(name.to_owned()),
        Some(_) => Err(format!("its `{at}` is empty: give a name, or remove it")),
        None => Err(format!("its `{at}` is {}, not a name", found(item))),
    };
    match doc.as_mapping_get(key) {
        None | Some(Yaml::Value(Scalar::Null)) => Ok(Vec::new()),
        Some(Yaml::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| name(item, &format!("{key}[{i}]")))
            .collect(),
        Some(value @ Yaml::Value(Scalar::String(_))) => Ok(vec![name(value, key)?]),
        Some(value) => Err(format!(
            "its `{key}` is {}, not a name or a list of names",
            found(value)
        )),
    }
}

/// How a value looks, for "its `hats` is …".
fn found(value: &Yaml<'_>) -> String {
    match value {
        Yaml::Value(Scalar::Integer(n)) => format!("a number ({n})"),
        Yaml::Value(Scalar::FloatingPoint(f)) => format!("a number ({f})"),
        Yaml::Value(Scalar::Boolean(b)) => format!("`{b}`"),
        Yaml::Value(Scalar::String(_)) => "text".to_owned(),
        Yaml::Value(Scalar::Null) => "empty".to_owned(),
        Yaml::Sequence(_) => "a list".to_owned(),
        Yaml::Mapping(_) => "a mapping".to_owned(),
        _ => "not a plain value".to_owned(),
    }
}
