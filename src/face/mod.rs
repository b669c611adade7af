//! What a user or a program calls: the component registry, the command line, the demo.

pub mod cli;
pub mod demo;
pub mod registry;
