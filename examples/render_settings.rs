//! Prints the settings.ini generated from the key table (used to refresh the shipped file).
fn main() {
    print!("{}", rccrawler::settings::keys::render_ini());
}
