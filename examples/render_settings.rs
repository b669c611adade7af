//! Prints the settings.ini generated from the key table (`--markdown`: docs/settings.md's table).
//! Refresh the shipped file with `cargo run --example render_settings > settings.ini`.
fn main() {
    if std::env::args().any(|a| a == "--markdown") {
        print!(
            "{}",
            rccrawler::formats::setting_keys::render_markdown_table()
        );
    } else {
        print!("{}", rccrawler::formats::setting_keys::render_ini());
    }
}
