use super::*;

fn decoded(raw: &str) -> String {
    JsonStr::new(raw.as_bytes()).decode().into_owned()
}

#[test]
fn plain_strings_are_borrowed() {
    assert!(matches!(
        JsonStr::new(b"abc").decode(),
        Cow::Borrowed("abc")
    ));
}

#[test]
fn standard_escapes_decode() {
    assert_eq!(
        decoded(r#"a\nb\t\"c\"\\\/\r\b\f"#),
        "a\nb\t\"c\"\\/\r\u{8}\u{c}"
    );
}

#[test]
fn unicode_escapes_and_surrogate_pairs_decode() {
    assert_eq!(decoded(r"caf\u00e9 \ud83d\ude80!"), "café 🚀!");
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    assert_eq!(decoded(r"cut \ud83d"), "cut \u{fffd}");
    assert_eq!(decoded(r"cut \ud83d then"), "cut \u{fffd} then");
    assert_eq!(decoded(r"\ude80x"), "\u{fffd}x");
    assert_eq!(decoded(r"\ud83d\u0041"), "\u{fffd}A");
}

#[test]
fn broken_escapes_never_fail() {
    assert_eq!(decoded(r"end\"), "end\u{fffd}");
    assert_eq!(decoded(r"\u12"), "\u{fffd}12");
    assert_eq!(decoded(r"\q"), "\\q");
}

#[test]
fn invalid_utf8_is_lossy_for_this_string_only() {
    let raw = b"ok \xff\xfe end";
    assert_eq!(JsonStr::new(raw).decode(), "ok \u{fffd}\u{fffd} end");
    let raw = b"esc\\n \xff";
    assert_eq!(JsonStr::new(raw).decode(), "esc\n \u{fffd}");
}

#[test]
fn spans_resolve_against_one_scratch_buffer() {
    let mut scratch = Scratch::default();
    let a = JsonStr::new(b"plain").decode_into(&mut scratch);
    let b = JsonStr::new(br"x\ny").decode_into(&mut scratch);
    let c = JsonStr::new(br"\u00e9").decode_into(&mut scratch);
    assert_eq!(a, Span::Line("plain"));
    assert_eq!(
        (
            a.resolve(&scratch),
            b.resolve(&scratch),
            c.resolve(&scratch)
        ),
        ("plain", "x\ny", "é")
    );
}

#[test]
fn key_comparison_sees_through_escapes() {
    assert!(JsonStr::new(b"type").eq("type"));
    assert!(JsonStr::new(br"t\u0079pe").eq("type"));
    assert!(!JsonStr::new(b"typo").eq("type"));
    assert!(matches!(
        JsonStr::new(b"type").name(),
        Cow::Borrowed(b"type")
    ));
    assert_eq!(&*JsonStr::new(br"\u0065rror").name(), b"error");
}
