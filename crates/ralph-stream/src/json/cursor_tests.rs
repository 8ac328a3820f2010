use super::*;

fn keys_and_raw(json: &str) -> Result<Vec<(String, String)>> {
    let mut c = Cursor::new(json.as_bytes());
    let mut obj = c.enter_object()?.ok_or(Malformed)?;
    let mut out = Vec::new();
    while let Some(key) = c.next_key(&mut obj)? {
        let raw = c.read_raw()?;
        out.push((
            key.decode().into_owned(),
            String::from_utf8_lossy(raw).into_owned(),
        ));
    }
    Ok(out)
}

#[test]
fn walks_top_level_keys_and_skips_nested_values() {
    let json = r#" { "a" : 1 , "b":{"x":[1,{"y":"}"}]},"c":"q\"}","d":[],"e":null,"f":true } "#;
    let got = keys_and_raw(json).unwrap();
    let want = [
        ("a", "1"),
        ("b", r#"{"x":[1,{"y":"}"}]}"#),
        ("c", r#""q\"}""#),
        ("d", "[]"),
        ("e", "null"),
        ("f", "true"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn strings_ending_in_escaped_backslashes_close_correctly() {
    let got = keys_and_raw(r#"{"a":"x\\","b":"y\\\"z"}"#).unwrap();
    assert_eq!(got[0].1, r#""x\\""#);
    assert_eq!(got[1].1, r#""y\\\"z""#);
}

#[test]
fn typed_readers_treat_other_types_as_absent() {
    let mut c = Cursor::new(br#"["s", 12, 1.5, true, {"k":1}, -3, 7.0]"#);
    let mut arr = c.enter_array().unwrap().unwrap();
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_u64().unwrap(), None);
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_str().unwrap(), None);
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_f64().unwrap(), Some(1.5));
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_f64().unwrap(), None);
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_bool().unwrap(), None);
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_u64().unwrap(), None);
    assert!(c.next_element(&mut arr).unwrap());
    assert_eq!(c.read_u64().unwrap(), Some(7));
    assert!(!c.next_element(&mut arr).unwrap());
}

#[test]
fn truncated_and_broken_input_is_malformed_not_a_panic() {
    for json in [
        r#"{"a":"unterminated"#,
        r#"{"a":{"b":[1,2"#,
        r#"{"a" 1}"#,
        r#"{"a":1,,}"#,
        r#"{a:1}"#,
        "",
        "{",
    ] {
        assert_eq!(keys_and_raw(json), Err(Malformed), "{json}");
    }
}

#[test]
fn empty_containers_walk() {
    assert_eq!(keys_and_raw("{}").unwrap(), vec![]);
    let mut c = Cursor::new(b"[]");
    let mut arr = c.enter_array().unwrap().unwrap();
    assert!(!c.next_element(&mut arr).unwrap());
}

#[test]
fn broken_containers_read_as_the_bytewise_reading_reads_them() {
    // Bytewise, a backslash outside strings is an ordinary byte, so the quote after it
    // opens a string (`],`) and the one after `b` another that never ends.
    assert_eq!(keys_and_raw(r#"{"a":[\"],"b":1}"#), Err(Malformed));
    let read = keys_and_raw(r#"{"a":[\"]"],"c":2}"#).unwrap();
    assert_eq!(read[0].1, r#"[\"]"]"#);
    assert_eq!(read[1], ("c".to_owned(), "2".to_owned()));
    // A raw newline inside a value is whitespace in a line whose end is known.
    assert_eq!(keys_and_raw("{\"a\":[1,\n2]}").unwrap()[0].1, "[1,\n2]");
    let mut c = Cursor::on_line_start(b"[1,\n2]");
    assert_eq!(c.skip(), Err(Malformed));
}

proptest::proptest! {
    /// The word-at-a-time search finds what a byte-at-a-time one finds, wherever the
    /// bytes that end a short string fall in a word, and whatever sits beside them
    /// (bytes one above or below them are where the zero-byte test can be fooled).
    #[test]
    fn first_special_finds_the_first_quote_backslash_or_newline(
        bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'"', b'\\', b'\n', b'#', b'!', b'[', b']', b'\t', b'\x0b', b'a', 0x80, 0xff, 0]),
            0..40,
        )
    ) {
        let expected = bytes.iter().position(|b| matches!(b, b'"' | b'\\' | b'\n'));
        proptest::prop_assert_eq!(super::first_special(&bytes), expected);
    }
}

#[test]
fn short_strings_end_at_their_quote_and_long_or_escaped_ones_read_whole() {
    for (json, text) in [
        (r#""""#, ""),
        (r#""type""#, "type"),
        (
            r#""exactly thirty-two bytes long..""#,
            "exactly thirty-two bytes long..",
        ),
        (
            r#""a string longer than the short probe, with no escape""#,
            "a string longer than the short probe, with no escape",
        ),
        (r#""esc\"aped""#, r#"esc\"aped"#),
        (r#""\\""#, r"\\"),
    ] {
        let mut c = Cursor::new(json.as_bytes());
        let s = c.read_str().unwrap().unwrap();
        assert_eq!(s, JsonStr::new(text.as_bytes()), "{json}");
        assert_eq!(c.position(), json.len(), "{json}");
    }
}
