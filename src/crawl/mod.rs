//! The paper's components and the engine that runs them: the application manager, data managers, downloaders, parsers, the routine, finishers, unloaders, schedulers, the settings they read, what threads send each other, watching a crawl.

pub mod app;
pub mod data;
pub(crate) mod engine;
pub mod fetch;
pub mod finish;
pub mod live;
pub mod message;
pub mod parse;
pub mod routine;
pub mod schedule;
pub mod settings;
pub mod unload;
