//! One integration test binary (fewer link steps on a 2-core machine).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;
mod suite;
