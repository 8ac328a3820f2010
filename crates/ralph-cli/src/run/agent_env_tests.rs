use std::path::Path;
use std::process::Command;

use super::{BASH_FUNCTION_RALPH, ralph_function};

/// The function runs the binary it names, whatever the path holds (a space, a `'`, a
/// `$`), with the arguments as given, in a login shell whose `PATH` has no ralph.
#[test]
fn the_exported_function_runs_its_binary_in_a_login_shell_with_any_path() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("it's a $dir");
    std::fs::create_dir(&odd).unwrap();
    let exe = odd.join("ralph");
    std::os::unix::fs::symlink(Path::new("/bin/echo"), &exe).unwrap();
    let out = Command::new("/bin/bash")
        .args(["-lc", "ralph emit 'two words' \"$HOME\""])
        .env_clear()
        .env("HOME", "/nowhere")
        .env("PATH", "/usr/bin:/bin")
        .env(BASH_FUNCTION_RALPH, ralph_function(&exe))
        .output()
        .expect("run bash");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "emit two words /nowhere\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
