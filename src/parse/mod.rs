//! Parsing: page bytes → text (charset) → links, base, title (links).

pub mod charset;
pub mod href_cache;
pub mod links;
pub mod worker;
