//! Test support: generators of realistic agent streams (and, with the mock model
//! server, everything ralph's tests need to run real agents offline).

pub mod streamgen;
