//! A `fallback` list that no `on_rate_limit: failover` reads: only that policy runs a
//! fallback backend, so under `wait` (the default) or `fail` the list is dead, and a rate
//! limit then waits (or fails) where the file reads as if it switched agents. A warning,
//! since the loop runs, just not as the file reads.

use super::error::{ConfigWarning, ConfigWarningKind};
use super::raw::{RawCli, RawHat};
use super::resolved::{DEFAULT_RATE_LIMIT_POLICY, RateLimitPolicy};

/// A warning for `cli.fallback` when neither `cli` nor a hat that takes it fails over (the
/// hats that fail over, if any, have lists of their own), and for each hat's own
/// `fallback` when that hat does not. An empty list asks for nothing.
pub(crate) fn check(cli: &RawCli, hats: &[RawHat]) -> Vec<ConfigWarning> {
    let cli_policy = cli
        .on_rate_limit
        .as_ref()
        .map_or(DEFAULT_RATE_LIMIT_POLICY, |p| p.value);
    let policy_of = |hat: &RawHat| hat.on_rate_limit.as_ref().map_or(cli_policy, |p| p.value);
    let mut warnings = Vec::new();
    if let Some(list) = cli.fallback.as_ref().filter(|l| !l.value.is_empty()) {
        // ralph's own coordinator (the default hat) follows `cli`; a hat without a list of
        // its own takes `cli`'s.
        let used = cli_policy == RateLimitPolicy::Failover
            || hats
                .iter()
                .any(|h| h.fallback.is_none() && policy_of(h) == RateLimitPolicy::Failover);
        // Hats that fail over with a list of their own: theirs replaces `cli`'s, which
        // is why it is never read, whatever `cli.on_rate_limit` says.
        let hiding: Vec<String> = (hats.iter())
            .filter(|h| h.fallback.is_some() && policy_of(h) == RateLimitPolicy::Failover)
            .map(|h| format!("`hats.{}`", h.id.value))
            .collect();
        if !used && hiding.is_empty() {
            warnings.push(warning(list.origin.clone(), "cli", cli_policy));
        } else if !used {
            warnings.push(ConfigWarning {
                origin: list.origin.clone(),
                kind: ConfigWarningKind::FallbackHiddenByHats {
                    hats: hiding.join(", "),
                    policy: cli_policy.name(),
                },
            });
        }
    }
    for hat in hats {
        let Some(list) = hat.fallback.as_ref().filter(|l| !l.value.is_empty()) else {
            continue;
        };
        let policy = policy_of(hat);
        if policy != RateLimitPolicy::Failover {
            let at = format!("hats.{}", hat.id.value);
            warnings.push(warning(list.origin.clone(), &at, policy));
        }
    }
    warnings
}

/// The warning for the `fallback` list under `at` (`cli`, `hats.ID`).
fn warning(origin: super::origin::Origin, at: &str, policy: RateLimitPolicy) -> ConfigWarning {
    ConfigWarning {
        origin,
        kind: ConfigWarningKind::FallbackWithoutFailover {
            key: format!("{at}.fallback"),
            policy_key: format!("{at}.on_rate_limit"),
            policy: policy.name(),
        },
    }
}

#[cfg(test)]
#[path = "unused_fallback_tests.rs"]
mod tests;
