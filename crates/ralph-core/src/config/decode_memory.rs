//! `skills.overrides:`: what the configuration changes about each skill, by name.
//!
//! ```yaml
//! skills:
//!   overrides:
//!     release-notes: {hats: [writer], auto_inject: true}
//!     old-habits: {enabled: false}
//! ```

use super::error::{ConfigError, ConfigErrorKind};
use super::key::Section;
use super::node::{Decoder, Field, join_path};
use super::raw::RawSkillOverride;

pub(crate) fn decode_skill_overrides(
    dec: &mut Decoder,
    field: &Field<'_>,
) -> Vec<RawSkillOverride> {
    let Some(entries) = dec.entries(field.value, &field.path) else {
        return Vec::new();
    };
    let mut overrides: Vec<RawSkillOverride> = Vec::with_capacity(entries.len());
    for (name, value) in entries {
        if name.value.trim().is_empty() {
            dec.errors.push(ConfigError::new(
                name.origin.clone(),
                ConfigErrorKind::Empty {
                    key: field.path.clone(),
                    why: "an override needs the name of its skill",
                },
            ));
            continue;
        }
        let path = join_path(&field.path, &name.value);
        let Some(mut s) = dec.section(value, &Section::SkillOverride.schema(&path)) else {
            continue;
        };
        let enabled = s.take("enabled").and_then(|f| dec.boolean(&f));
        let hats = s.take("hats").and_then(|f| dec.plain_strings(&f));
        let backends = s.take("backends").and_then(|f| dec.plain_strings(&f));
        let auto_inject = s.take("auto_inject").and_then(|f| dec.boolean(&f));
        s.finish();
        overrides.push(RawSkillOverride {
            name,
            enabled,
            hats,
            backends,
            auto_inject,
        });
    }
    overrides
}
