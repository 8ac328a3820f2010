use std::time::{Duration, SystemTime};

use super::*;

const ARGS: &[&str] = &["--version"];

fn setup() -> (tempfile::TempDir, ProbeCache, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cache = ProbeCache::in_dir(dir.path().join("cache"));
    let bin = dir.path().join("agent");
    std::fs::write(&bin, "#!/bin/sh\n").unwrap();
    (dir, cache, bin)
}

fn only_entry(cache: &ProbeCache) -> PathBuf {
    let entries: Vec<_> = std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

#[test]
fn a_stored_success_is_a_hit_for_the_same_binary_and_arguments_only() {
    let (_dir, cache, bin) = setup();
    assert!(!cache.hit(&bin, ARGS));
    cache.store(&bin, ARGS);
    assert!(cache.hit(&bin, ARGS));
    assert!(!cache.hit(&bin, &["version"]));
}

#[test]
fn a_changed_size_or_mtime_is_a_miss() {
    let (_dir, cache, bin) = setup();
    cache.store(&bin, ARGS);
    std::fs::write(&bin, "#!/bin/sh\nexit 0\n").unwrap();
    assert!(!cache.hit(&bin, ARGS), "size changed");

    cache.store(&bin, ARGS);
    let later = SystemTime::now() + Duration::from_secs(60);
    File::options()
        .write(true)
        .open(&bin)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert!(!cache.hit(&bin, ARGS), "mtime changed");
}

#[test]
fn a_replaced_binary_with_the_same_size_and_mtime_is_a_miss() {
    let (dir, cache, bin) = setup();
    cache.store(&bin, ARGS);
    let mtime = std::fs::metadata(&bin).unwrap().modified().unwrap();
    let other = dir.path().join("other");
    std::fs::write(&other, "#!/bin/sh\n").unwrap();
    File::options()
        .write(true)
        .open(&other)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    std::fs::rename(&other, &bin).unwrap();
    assert!(!cache.hit(&bin, ARGS), "inode changed");
}

#[test]
fn damaged_oversized_or_foreign_entries_are_misses() {
    let (_dir, cache, bin) = setup();
    cache.store(&bin, ARGS);
    let entry = only_entry(&cache);
    let good = std::fs::read(&entry).unwrap();

    std::fs::write(&entry, &good[..good.len() / 2]).unwrap();
    assert!(!cache.hit(&bin, ARGS), "truncated");
    std::fs::write(&entry, b"\xff\x00garbage").unwrap();
    assert!(!cache.hit(&bin, ARGS), "garbage");
    let mut huge = good.clone();
    huge.resize(usize::try_from(MAX_ENTRY_BYTES).unwrap() * 2, b'x');
    std::fs::write(&entry, &huge).unwrap();
    assert!(!cache.hit(&bin, ARGS), "oversized");

    std::fs::remove_file(&entry).unwrap();
    std::fs::create_dir(&entry).unwrap();
    assert!(!cache.hit(&bin, ARGS), "a directory");
    cache.store(&bin, ARGS); // cannot replace a directory: still no error
    assert!(!cache.hit(&bin, ARGS));
}

#[test]
fn links_and_fifos_in_the_cache_are_misses_without_blocking() {
    let (dir, cache, bin) = setup();
    cache.store(&bin, ARGS);
    let entry = only_entry(&cache);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(&entry, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &entry).unwrap();
    assert!(!cache.hit(&bin, ARGS), "a symlink to a valid entry");

    std::fs::remove_file(&entry).unwrap();
    nix::unistd::mkfifo(&entry, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    assert!(!cache.hit(&bin, ARGS), "a FIFO (and no hang)");
}

#[test]
fn a_missing_binary_or_unwritable_cache_is_never_an_error() {
    let (dir, _cache, bin) = setup();
    let blocked = dir.path().join("file-not-dir");
    std::fs::write(&blocked, "").unwrap();
    let cache = ProbeCache::in_dir(blocked.join("probes"));
    cache.store(&bin, ARGS);
    assert!(!cache.hit(&bin, ARGS));
    assert!(!cache.hit(&dir.path().join("missing"), ARGS));
}

#[test]
fn writes_leave_no_temporary_files() {
    let (_dir, cache, bin) = setup();
    cache.store(&bin, ARGS);
    cache.store(&bin, ARGS);
    only_entry(&cache);
}
