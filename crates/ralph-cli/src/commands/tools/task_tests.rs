use super::*;

/// 2026-11-26T02:39:22Z in Unix seconds.
const STAMP_SECONDS: i64 = 1_795_660_762;

#[test]
fn stamps_of_either_tool_and_other_offsets_are_read_as_unix_seconds() {
    for stamp in [
        "2026-11-26T02:39:22.102945259+00:00",
        "2026-11-26T02:39:22Z",
        "2026-11-26T04:39:22.5+02:00",
        "2026-11-25T21:09:22-05:30",
    ] {
        assert_eq!(unix_seconds(stamp), Some(STAMP_SECONDS), "{stamp}");
    }
    let now = SystemTime::now();
    let written = unix_seconds(&rfc3339_nanos(now)).unwrap();
    let expected = now.duration_since(UNIX_EPOCH).unwrap().as_secs();
    assert_eq!(u64::try_from(written).unwrap(), expected);
}

#[test]
fn what_is_not_a_stamp_is_none() {
    for stamp in [
        "",
        "2026-11-26",
        "2026-11-26T02:39",
        "2026-11-26T02:39:22",
        "yesterday",
    ] {
        assert_eq!(unix_seconds(stamp), None, "{stamp}");
    }
}
