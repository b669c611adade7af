//! Layer 6, `face`: what a person or a program calls.
//!
//! - [`registry`] — component names → constructors: the paper's names (`TextFileAM`, `DT0`, …)
//!   appear only here.
//! - [`cli`] — the command line: arguments, loading the input files, exit codes.
//! - [`demo`] — the bundled demo site, served and crawled.

pub mod cli;
pub mod demo;
pub mod registry;
