#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ralph_fuzz::check(Some(ralph_stream::StreamFormat::Opencode), data);
});
