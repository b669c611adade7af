//! rccrawler
pub mod robots;
pub mod url_norm;
