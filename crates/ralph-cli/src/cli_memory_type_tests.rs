use clap::Parser;

use super::*;

#[derive(Debug, Parser)]
struct Probe {
    #[arg(short = 't', value_parser = MemoryTypeParser)]
    one: Option<MemoryType>,
    #[arg(long, value_parser = MemoryTypeParser, value_delimiter = ',')]
    many: Vec<MemoryType>,
}

fn parse(args: &[&str]) -> Result<Probe, clap::Error> {
    Probe::try_parse_from(std::iter::once("probe").chain(args.iter().copied()))
}

#[test]
fn any_case_is_the_same_type() {
    for (text, kind) in [
        ("fix", MemoryType::Fix),
        ("Fix", MemoryType::Fix),
        ("DECISION", MemoryType::Decision),
        ("Pattern", MemoryType::Pattern),
        ("conTEXT", MemoryType::Context),
    ] {
        assert_eq!(parse(&["-t", text]).unwrap().one, Some(kind), "{text}");
    }
    assert_eq!(
        parse(&["--many", "Fix,pattern"]).unwrap().many,
        [MemoryType::Fix, MemoryType::Pattern]
    );
}

#[test]
fn an_unknown_type_is_named_with_the_lowercase_names() {
    let err = parse(&["-t", "bogus"]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    let text = err.to_string();
    assert!(
        text.contains("'bogus'")
            && text.contains("[possible values: pattern, decision, fix, context]"),
        "{text}"
    );
}

#[test]
fn help_lists_the_lowercase_names() {
    let names: Vec<String> = MemoryTypeParser
        .possible_values()
        .unwrap()
        .map(|v| v.get_name().to_owned())
        .collect();
    assert_eq!(names, ["pattern", "decision", "fix", "context"]);
}
