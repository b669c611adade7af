//! Helpers shared by the integration tests (each test file uses a subset, hence the allow).
#![allow(dead_code, unreachable_pub)]

pub mod conformance;
