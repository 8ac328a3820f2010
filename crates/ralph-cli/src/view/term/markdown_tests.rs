use super::*;

fn render(deltas: &[&str]) -> String {
    let mut md = Markdown::new();
    let mut out = String::new();
    for d in deltas {
        md.push(d, &mut out);
    }
    md.finish(&mut out);
    out
}

fn plain(deltas: &[&str]) -> String {
    let styled = render(deltas);
    anstream::adapter::strip_str(&styled).to_string()
}

const TEXT: &str = "# Title\nSome `code` and **bold** text.\n> quoted\n```rust\nfn main() {}\n```\n- item * star\n";

#[test]
fn with_styles_stripped_the_text_is_unchanged_however_it_is_split() {
    assert_eq!(plain(&[TEXT]), TEXT);
    let chars: Vec<String> = TEXT.chars().map(String::from).collect();
    let deltas: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(plain(&deltas), TEXT);
    assert_eq!(render(&deltas), render(&[TEXT]));
}

#[test]
fn headings_code_and_bold_are_styled() {
    let styled = render(&[TEXT]);
    let strong = palette::STRONG.render().to_string();
    let code = palette::CODE.render().to_string();
    assert!(
        styled.starts_with(&format!("{strong}# Title")),
        "{styled:?}"
    );
    assert!(styled.contains(&format!("{code}`code`")), "{styled:?}");
    assert!(styled.contains("fn main() {}"));
}

#[test]
fn a_line_start_is_held_only_until_it_is_decided() {
    let mut md = Markdown::new();
    let mut out = String::new();
    md.push("#", &mut out);
    assert_eq!(out, "");
    md.push("#x", &mut out);
    assert_eq!(anstream::adapter::strip_str(&out).to_string(), "##x");
    let mut md = Markdown::new();
    let mut out = String::new();
    md.push("plain", &mut out);
    assert_eq!(out, "plain");
}
