use std::path::Path;

use super::link_stays_inside;

#[test]
fn links_are_judged_by_where_they_lead() {
    let inside = |rel: &str, target: &str| link_stays_inside(rel, Path::new(target));
    assert!(inside(".env", ".env.shared"));
    assert!(inside("config/local.yml", "../shared/local.yml"));
    assert!(inside("a/b/c", "./d"));
    assert!(!inside(".env", "/etc/passwd"));
    assert!(!inside(".env", "../outside"));
    assert!(!inside("config/x", "../../outside"));
    assert!(!inside("x", ".git/config"));
    assert!(!inside("a/x", "../.git/config"));
}
