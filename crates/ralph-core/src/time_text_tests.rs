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
