//! The calendar arithmetic of memory dates.

use super::*;

#[test]
fn days_round_trip_through_the_calendar() {
    assert_eq!(ymd(0), "1970-01-01");
    assert_eq!(ymd(20_783), "2026-11-26");
    assert_eq!(parse_ymd("2026-11-26"), Some(20_783));
    assert_eq!(
        parse_ymd("2000-02-29").map(ymd).as_deref(),
        Some("2000-02-29")
    );
    for day in (-700_000..800_000).step_by(997) {
        assert_eq!(parse_ymd(&ymd(day)), Some(day), "{}", ymd(day));
    }
    assert_eq!(parse_ymd("2026-13-01"), None);
    assert_eq!(parse_ymd("yesterday"), None);
}
