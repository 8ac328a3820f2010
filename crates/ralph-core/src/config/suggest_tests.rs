use super::*;

#[test]
fn suggests_near_spellings_and_unambiguous_abbreviations_only() {
    let keys = [
        "backend",
        "command",
        "args",
        "prompt_mode",
        "prompt_flag",
        "max_iterations",
    ];
    let words = [
        "backnd",
        "comand",
        "max_iteration",
        "prompt_mod",
        "max_iter",
        "prompt",
        "max",
        "zzz",
    ];
    let got: Vec<_> = words.iter().map(|w| closest(w, keys)).collect();
    assert_eq!(
        got,
        vec![
            Some("backend"),
            Some("command"),
            Some("max_iterations"),
            Some("prompt_mode"),
            Some("max_iterations"),
            None,
            None,
            None
        ]
    );
}
