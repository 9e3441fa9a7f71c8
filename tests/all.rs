//! One integration test binary (fewer link steps on a 2-core machine).

mod common;
mod suite;
