//! THE key table of settings.ini: every key with its default and documentation. Loading,
//! unknown-key warnings, the shipped settings.ini and docs/settings.md's table all come from
//! here (tests keep the shipped file and the doc complete).

/// The longest `MaxUrlLength` allowed (a request line's room is sized for it).
pub const MAX_URL_LENGTH: usize = 65_536;

/// A yes/no setting's value: `yes` or `no`, and, read the same, `1`/`true`/`on` and
/// `0`/`false`/`off` (any case); `None` for anything else.
pub fn flag_value(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "1" | "true" | "on" => Some(true),
        "no" | "0" | "false" | "off" => Some(false),
        _ => None,
    }
}

/// A yes/no value as the crawl record writes it (`yes`/`no`), or the text as it is when it is
/// not one.
pub fn normal_flag(text: &str) -> &str {
    match flag_value(text) {
        Some(true) => "yes",
        Some(false) => "no",
        None => text,
    }
}

/// What kind of value a key takes (used for validation messages and docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueKind {
    /// One component name from the registry.
    Component,
    /// A comma-separated list of component names.
    ComponentList,
    /// An integer in `min..=max`.
    Integer {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
    },
    /// `0`/`1` (also `yes`/`no`, `true`/`false`, `on`/`off`).
    Flag,
    /// A file or folder, relative to settings.ini's folder unless absolute.
    Path,
    /// Free text.
    Text,
    /// `host:ip` pairs, comma-separated.
    ResolveList,
    /// One of a few words.
    Choice(&'static [&'static str]),
    /// A decimal number in `min..=max`.
    Decimal {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// A key of the RCCrawler paper's settings.ini that tunes its engine (chunk sizes, sleep
    /// times): accepted, with a note that this engine does not need it.
    PaperTuning,
}

/// One settings.ini key.
#[derive(Debug, Clone, Copy)]
pub struct KeyDef {
    /// The key as written in settings.ini (case-sensitive).
    pub name: &'static str,
    /// The value used when the key is absent.
    pub default: &'static str,
    /// What the value means.
    pub doc: &'static str,
    /// How the value is validated.
    pub kind: ValueKind,
    /// Section heading in the generated settings.ini.
    pub group: &'static str,
}

const fn int(min: u64, max: u64) -> ValueKind {
    ValueKind::Integer { min, max }
}

macro_rules! key {
    ($group:literal, $name:literal, $default:expr, $kind:expr, $doc:literal) => {
        KeyDef {
            name: $name,
            default: $default,
            doc: $doc,
            kind: $kind,
            group: $group,
        }
    };
}

// After the macro: the tables use it.
mod files;
mod run;

/// `CommonDomainLabels`' default: the domain-name filter paper's list (www, com, cn, edu, org,
/// gov, net), then what real seeds need so that their key domain is the organisation's name:
/// second-level labels of country domains (ac.uk, co.jp, or.kr, spb.ru, com.au...), country
/// labels that appear before the top level (uk.com), and host prefixes (m., en., www2.).
pub const COMMON_DOMAIN_LABELS: &str = "www,com,cn,edu,org,gov,net,ac,co,or,ne,go,int,mil,info,biz,name,pro,ru,su,uk,us,de,fr,it,es,jp,kr,tw,hk,au,ca,in,br,ua,by,kz,eu,spb,msk,m,mobile,en,www1,www2,www3,web";

/// Every key, in the order the shipped settings.ini lists them.
/// Every key, in the order the shipped settings.ini lists them.
pub const KEYS: &[KeyDef] =
    &concat::<{ run::KEYS.len() + files::KEYS.len() }>(run::KEYS, files::KEYS);

/// The two halves of the table as one array (a table over 600 lines was one file).
const fn concat<const N: usize>(a: &[KeyDef], b: &[KeyDef]) -> [KeyDef; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

/// Looks a key up by its exact name.
pub fn find(name: &str) -> Option<&'static KeyDef> {
    KEYS.iter().find(|k| k.name == name)
}

/// Keys the shipped settings.ini lists commented out, with their defaults: the paper's tuning
/// keys, listed for reference only (set, they print a note), and `Scheduler`, whose default
/// depends on `PageBudget` (a shipped `Scheduler = AllSites` made every budgeted crawl of
/// that file round robin; issue 20).
pub fn listed_commented(k: &KeyDef) -> bool {
    k.kind == ValueKind::PaperTuning || k.name == "Scheduler"
}

/// The shipped settings.ini, generated from the table: every key with its default (the
/// paper's tuning keys commented out).
pub fn render_ini() -> String {
    let mut out = String::from(
        "; rccrawler settings. Every key is listed with its default value; delete a line to use\n\
         ; the default. Comments start with ';' or '#' (also after a value, preceded by a space).\n\
         ; Relative paths are relative to this file's folder. A backslash is an escape\n\
         ; character here: write Windows paths with '/'.\n",
    );
    let mut group = "";
    for k in KEYS {
        if k.group != group {
            group = k.group;
            out.push_str(&format!("\n; ---- {group} ----\n"));
        }
        for line in wrap(k.doc, 88) {
            out.push_str("; ");
            out.push_str(&line);
            out.push('\n');
        }
        let comment = if listed_commented(k) { "; " } else { "" };
        out.push_str(&format!("{comment}{} = {}\n", k.name, k.default));
    }
    out
}

/// docs/settings.md's key table (Markdown).
pub fn render_markdown_table() -> String {
    let mut out = String::from("| key | default | meaning |\n|---|---|---|\n");
    for k in KEYS {
        let default = if k.default.is_empty() {
            "(empty)"
        } else {
            k.default
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            k.name,
            default,
            k.doc.replace('|', "\\|")
        ));
    }
    out
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("never empty");
        if !last.is_empty() && last.len() + 1 + word.len() > width {
            lines.push(word.to_owned());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}
