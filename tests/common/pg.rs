//! A private PostgreSQL server for a test: `initdb` into a temporary folder, started on a free
//! loopback port, stopped and removed when dropped. Or the server `RCCRAWLER_TEST_DATABASE_URL`
//! names (a fresh database is created on it for each test).
//!
//! Without either, a test cannot run: under `CI=true` that fails the run; elsewhere the test
//! prints loudly that it was skipped and why, and passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A database for one test.
pub struct PgServer {
    /// Connection URL of the test's database.
    pub url: String,
    /// The server's data folder and binaries (none: an outside server).
    private: Option<Private>,
}

struct Private {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// Run the server binaries as this user (we are root, which PostgreSQL refuses).
    run_as: Option<String>,
}

static NEXT_DB: AtomicUsize = AtomicUsize::new(0);

/// Where the server binaries are: `PG_BIN`, Debian's /usr/lib/postgresql/N/bin (newest), or
/// the PATH.
fn server_binaries() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").exists())
        .collect();
    debian.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(b) = debian.pop() {
        return Some(b);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| d.join("initdb").exists() && d.join("pg_ctl").exists())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A database for `test`, or `None` (after saying why) when no server can be had.
pub fn server(test: &str) -> Option<PgServer> {
    match try_server() {
        Ok(s) => Some(s),
        Err(why) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{test}: no PostgreSQL server for the PgDM tests under CI=true: {why}");
            }
            eprintln!(
                "\n*** SKIPPED {test}: no PostgreSQL server: {why}.\n*** Install the server \
                 (Debian: apt-get install postgresql) or set RCCRAWLER_TEST_DATABASE_URL.\n"
            );
            None
        }
    }
}

fn try_server() -> Result<PgServer, String> {
    if let Ok(url) = std::env::var("RCCRAWLER_TEST_DATABASE_URL") {
        return outside(&url);
    }
    let bin = server_binaries().ok_or("initdb not found (PG_BIN, /usr/lib/postgresql, PATH)")?;
    let run_as = if is_root() {
        Some("postgres".to_owned())
    } else {
        None
    };
    let dir = tempfile::Builder::new()
        .prefix("rccrawler-pg")
        .tempdir()
        .map_err(|e| e.to_string())?;
    if let Some(user) = &run_as {
        let ok = Command::new("chown")
            .args([user.as_str(), &dir.path().display().to_string()])
            .status()
            .map_err(|e| e.to_string())?;
        if !ok.success() {
            return Err(format!(
                "cannot give {} to user {user}",
                dir.path().display()
            ));
        }
    }
    let mut p = Private {
        dir,
        bin,
        port: 0,
        run_as,
    };
    let data = p.dir.path().join("data");
    let out = p
        .command("initdb")
        .args(["-A", "trust", "-U", "rc", "--no-sync", "-E", "UTF8", "-D"])
        .arg(&data)
        .output()
        .map_err(|e| format!("initdb: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // A free port can be taken by someone else before the server binds it: try a few.
    let mut last = String::new();
    for _ in 0..5 {
        p.port = super::free_port();
        match p.start() {
            Ok(()) => {
                let url = format!("postgresql://rc@127.0.0.1:{}/postgres", p.port);
                return Ok(PgServer {
                    url,
                    private: Some(p),
                });
            }
            Err(e) => last = e,
        }
    }
    Err(format!("the server did not start: {last}"))
}

/// A fresh database on an outside server.
fn outside(url: &str) -> Result<PgServer, String> {
    let mut c = postgres::Client::connect(url, postgres::NoTls)
        .map_err(|e| format!("RCCRAWLER_TEST_DATABASE_URL: {e}"))?;
    let name = format!(
        "rccrawler_test_{}_{}",
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::SeqCst)
    );
    c.batch_execute(&format!("CREATE DATABASE {name}"))
        .map_err(|e| e.to_string())?;
    // postgres://user@host:port/db?opts → postgres://user@host:port/<name>
    let base = url.split('?').next().unwrap_or(url);
    let without_db = match base.rsplit_once('/') {
        Some((head, _)) if head.contains("://") => head,
        _ => base,
    };
    Ok(PgServer {
        url: format!("{without_db}/{name}"),
        private: None,
    })
}

impl Private {
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn start(&self) -> Result<(), String> {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=100",
            self.port,
            self.dir.path().display()
        );
        let out = self
            .command("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(self.data())
            .args(["-l"])
            .arg(self.dir.path().join("log"))
            .args(["-o", &opts, "start"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("pg_ctl: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
            Err(format!(
                "pg_ctl start: {}{}",
                String::from_utf8_lossy(&out.stdout),
                log.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
            ))
        }
    }

    fn stop(&self, mode: &str) {
        let _ = self
            .command("pg_ctl")
            .args(["-w", "-D"])
            .arg(self.data())
            .args(["-m", mode, "stop"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl PgServer {
    /// A client of the test's database.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("the test database")
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`); only for a
    /// private server.
    pub fn crash(&self) {
        self.private
            .as_ref()
            .expect("a private server to stop")
            .stop("immediate");
    }

    /// Starts a stopped private server again on the same port.
    pub fn restart(&self) {
        let p = self.private.as_ref().expect("a private server");
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            match p.start() {
                Ok(()) => return,
                Err(e) if Instant::now() > until => panic!("restarting the server: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }

    /// Whether the test can stop and start the server (a private one).
    pub fn is_private(&self) -> bool {
        self.private.is_some()
    }

    /// The server's folder (logs), for messages.
    pub fn folder(&self) -> Option<&Path> {
        self.private.as_ref().map(|p| p.dir.path())
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(p) = &self.private {
            p.stop("immediate");
        }
    }
}
