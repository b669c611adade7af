//! Bytes other tools and people read and write: WARC archives, the Gephi CSV dialects, the crawl record, settings.ini's key table, hosts.txt.

pub mod crawl_record;
pub(crate) mod gephi_csv;
pub mod hosts;
pub mod setting_keys;
pub mod warc;
