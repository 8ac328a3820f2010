//! Times as text, in UTC, without a date library: run ids, and the RFC 3339 stamps and
//! dates of the agent's files (`tasks.jsonl`, `memories.md`) in the form
//! ralph-orchestrator writes them, so either tool reads the other's.

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment's UTC calendar fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u64,
    pub minute: u64,
    pub second: u64,
    pub nanos: u32,
}

impl Civil {
    /// `t` in UTC (times before 1970 count as 1970-01-01).
    pub fn of(t: SystemTime) -> Civil {
        let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        Civil::of_unix(since.as_secs(), since.subsec_nanos())
    }

    /// The moment `millis` milliseconds after 1970-01-01T00:00Z, for any count (a time
    /// read from a file can be anything; `UNIX_EPOCH + Duration` would panic past what
    /// the system clock holds).
    pub fn of_unix_millis(millis: u64) -> Civil {
        let nanos = u32::try_from(millis % 1000 * 1_000_000).unwrap_or(0);
        Civil::of_unix(millis / 1000, nanos)
    }

    /// The moment `secs` seconds and `nanos` after 1970-01-01T00:00Z, for any count.
    pub fn of_unix(secs: u64, nanos: u32) -> Civil {
        // u64::MAX seconds is about 2.1e14 days: well inside i64.
        let days = i64::try_from(secs / 86_400).unwrap_or(0);
        let rem = secs % 86_400;
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: (rem % 3600) / 60,
            second: rem % 60,
            nanos,
        }
    }
}

/// `2026-11-26T02:39:22.102945259+00:00`: RFC 3339 with nanoseconds, as
/// ralph-orchestrator stamps its tasks.
pub fn rfc3339_nanos(t: SystemTime) -> String {
    let c = Civil::of(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}+00:00",
        c.year, c.month, c.day, c.hour, c.minute, c.second, c.nanos
    )
}

/// `2026-11-26`.
pub fn date(t: SystemTime) -> String {
    let c = Civil::of(t);
    format!("{:04}-{:02}-{:02}", c.year, c.month, c.day)
}

/// `2026-11-26 07:40 UTC` for a time in Unix seconds: when a limit resets.
pub fn utc_minute_secs(unix_secs: u64) -> String {
    let c = Civil::of_unix(unix_secs, 0);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        c.year, c.month, c.day, c.hour, c.minute
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    // d is in 1..=31 and m in 1..=12 by construction.
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}

#[cfg(test)]
#[path = "time_text_tests.rs"]
mod tests;
