use std::time::Duration;

use super::*;

#[test]
fn formats_utc_stamps_and_dates() {
    let t = UNIX_EPOCH + Duration::new(1_795_660_762, 102_945_259);
    assert_eq!(rfc3339_nanos(t), "2026-11-26T02:39:22.102945259+00:00");
    assert_eq!(date(t), "2026-11-26");
    assert_eq!(
        rfc3339_nanos(UNIX_EPOCH),
        "1970-01-01T00:00:00.000000000+00:00"
    );
    let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
    assert_eq!(date(leap), "2000-02-29");
}

#[test]
fn any_unix_count_reads_as_a_moment() {
    assert_eq!(utc_minute_secs(1_795_660_762), "2026-11-26 02:39 UTC");
    let c = Civil::of_unix_millis(1_795_660_762_102);
    assert_eq!((c.year, c.month, c.day, c.second), (2026, 11, 26, 22));
    assert_eq!(c.nanos, 102_000_000);
    // An agent's reset time or a file's stamp can be any number: past what the system
    // clock holds, it is still a date (a far one), not a panic.
    assert!(utc_minute_secs(u64::MAX).ends_with(" UTC"));
    assert!(Civil::of_unix_millis(u64::MAX).year > 500_000_000);
}
