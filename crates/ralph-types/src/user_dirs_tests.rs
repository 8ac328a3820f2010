use super::*;

#[test]
fn fnv1a_is_the_published_function() {
    // Test vectors of the FNV reference (64-bit FNV-1a).
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
}
