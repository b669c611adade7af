//! The Python `networkx` library, which reads GEXF as many a study's scripts do: .ci/run
//! installs it into the virtual environment beside warcio (RCCRAWLER_WARCIO); elsewhere a
//! `python3` that has it is used, or the check is left out with a message (never in CI).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A Python with networkx, if there is one.
fn python() -> Option<PathBuf> {
    super::warcio::tool(
        super::warcio::beside_warcio("python")
            .into_iter()
            .chain([PathBuf::from("python3")]),
        &["-c", "import networkx"],
        "networkx",
        "reading the GEXF files with it",
    )
}

/// `networkx.read_gexf` of `path` (GEXF 1.3): each node by label, with its attributes as
/// networkx gives them (dynamic ones as `[value, start, end]` lists, `spells` as
/// `[start, end]` lists); `None` without networkx. A file networkx cannot read fails the test.
pub fn read_gexf(path: &Path) -> Option<BTreeMap<String, serde_json::Value>> {
    let py = python()?;
    let script = r#"
import json, sys
import networkx as nx
g = nx.read_gexf(sys.argv[1], version="1.3")
out = {}
for n, d in g.nodes(data=True):
    d = dict(d)
    out[d.pop("label", n)] = d
print(json.dumps(out, default=str))
"#;
    let o = Command::new(py)
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("python runs");
    assert!(
        o.status.success(),
        "networkx cannot read {}: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(serde_json::from_slice(&o.stdout).expect("JSON"))
}
